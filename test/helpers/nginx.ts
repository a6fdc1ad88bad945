// A private nginx in front of the test cluster's nodes: HTTPS on a free
// loopback port, every request passed to one of the nodes (round robin) over
// HTTPS with X-Forwarded-For, so the nodes run with SPLITGUARD_TRUST_PROXY
// naming 127.0.0.1. Its configuration, certificate copy, temporary files
// and logs are in a fresh temporary directory; as root it runs as `nobody`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports.js';

export function nginxInstalled(): boolean {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface TestNginx {
  port: number;
  close(): Promise<void>;
}

const NOBODY = 65534;

function config(dir: string, port: number, upstreams: number[]): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream splitguard {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    location / {
      proxy_pass https://splitguard;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_ssl_verify off;
      proxy_ssl_session_reuse on;
      proxy_connect_timeout 1s;
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

/** nginx on a free port, passing to the nodes at `upstreams`; it serves `certFile`/`keyFile`. */
export async function startNginx(upstreams: number[], certFile: string, keyFile: string): Promise<TestNginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-nginx-'));
  mkdirSync(path.join(dir, 'tmp'));
  copyFileSync(certFile, path.join(dir, 'cert.pem'));
  copyFileSync(keyFile, path.join(dir, 'key.pem'));
  const port = await freePort();
  writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port, upstreams));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) for (const f of ['', 'tmp', 'cert.pem', 'key.pem', 'nginx.conf']) chownSync(path.join(dir, f), NOBODY, NOBODY);
  const args = ['-c', path.join(dir, 'nginx.conf'), '-p', dir, '-e', path.join(dir, 'error.log')];
  const command = asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'nginx', ...args] : ['nginx', ...args];
  const child: ChildProcess = spawn(command[0], command.slice(1), { stdio: 'ignore' });
  await waitForPort(port, 10_000, () => child.exitCode !== null);
  return {
    port,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Storage faults for the reliability tests, made with the kernel rather than
// mocks: a tmpfs of a fixed size (a disk that fills up), a tmpfs remounted
// read-only (a data directory that cannot be written from the start), and an
// ext4 file system on a loop device whose error handling is triggered through
// sysfs (errors=remount-ro: the kernel turns it read-only under a running
// server, the way a failing disk does; a plain remount is refused while files
// are open for writing). Mounting needs root; when it is not permitted, the
// tests skip and say why.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** null when tmpfs mounts work here, else the reason they do not. */
export function cannotMount(): string | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-mount-probe-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    run('umount', [dir]);
    return null;
  } catch (err) {
    return `mounting a tmpfs is not permitted here (${(err as Error).message.split('\n')[0]})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** null when an ext4 file system on a loop device can be made and mounted, else why not. */
export function cannotMountExt4(): string | null {
  const reason = cannotMount();
  if (reason) return reason;
  try {
    run('mkfs.ext4', ['-V']);
  } catch {
    return 'mkfs.ext4 is not installed';
  }
  try {
    const fs = ext4(16);
    fs.unmount();
    return null;
  } catch (err) {
    return `an ext4 loop mount failed (${(err as Error).message.split('\n')[0]})`;
  }
}

export function mountTmpfs(dir: string, sizeMiB: number): void {
  run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir]);
}

export function remountReadOnly(dir: string): void {
  run('mount', ['-o', 'remount,ro', dir]);
}

export function remountReadWrite(dir: string): void {
  run('mount', ['-o', 'remount,rw', dir]);
}

function mounted(dir: string): boolean {
  try {
    run('findmnt', ['-n', dir]);
    return true;
  } catch {
    return false;
  }
}

/** Unmounts if mounted, lazily if something still holds it (a killed server's files close asynchronously). */
export function unmount(dir: string): void {
  if (!mounted(dir)) return;
  try {
    run('umount', [dir]);
  } catch {
    run('umount', ['-l', dir]);
  }
}

export interface Ext4 {
  /** The mount point. */
  dir: string;
  /** The image file behind the loop device. */
  image: string;
  /** Makes the kernel record a file-system error: with errors=remount-ro it turns read-only at once. */
  fail(message: string): void;
  /** The mount options now (e.g. includes "emergency_ro" after fail()). */
  options(): string;
  /**
   * Unmounts, repairs with e2fsck (as after a real error) and mounts again;
   * returns e2fsck's exit status (0 clean, 1 errors corrected).
   */
  checkAndRemount(): number;
  unmount(): void;
}

/** A fresh ext4 file system of `sizeMiB` on a loop device, mounted with errors=remount-ro. */
export function ext4(sizeMiB: number): Ext4 {
  const base = mkdtempSync(path.join(os.tmpdir(), 'sg-ext4-'));
  const image = path.join(base, 'fs.img');
  const dir = path.join(base, 'mnt');
  run('truncate', ['-s', `${sizeMiB}M`, image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  run('mkdir', [dir]);
  run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
  const device = path.basename(run('findmnt', ['-n', '-o', 'SOURCE', dir]).trim());
  return {
    dir,
    image,
    fail(message) {
      writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, message);
    },
    options: () => run('findmnt', ['-n', '-o', 'OPTIONS', dir]).trim(),
    checkAndRemount() {
      unmount(dir);
      const fsck = spawnSync('e2fsck', ['-fy', image], { stdio: 'ignore' });
      if (fsck.status === null || fsck.status > 1) throw new Error(`e2fsck ${image} exited ${fsck.status}`);
      run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
      return fsck.status;
    },
    unmount() {
      unmount(dir);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Writes zeros to `file` until its file system refuses (ENOSPC): in large writes, then small ones to take the last blocks. */
export function fillFileSystem(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 512]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Damage to a file as a failing disk or a stray write leaves it: `bytes` written over it at `offset`, its length kept. */
export function patchFile(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

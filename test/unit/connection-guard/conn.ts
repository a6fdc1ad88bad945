// Synthetic connection lists for the connection guard's policy tests.
import type { GuardedConnection, GuardLimits } from '../../../src/http/connection-guard.js';

let nextInode = 1000;

/** An accepted, idle connection with an empty send queue, unless overridden. */
export function conn(address: string, fields: Partial<GuardedConnection> = {}): GuardedConnection {
  const inode = fields.inode ?? nextInode++;
  return { inode, address, port: 40_000 + (inode % 20_000), sendQueue: 0, bytesAcked: 1000, lastReceiveMs: 100, ...fields };
}

export const NO_LIMITS: GuardLimits = { perAddress: 0, global: 0, stallMs: 0, trusted: [] };

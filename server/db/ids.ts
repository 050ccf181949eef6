import { randomBytes } from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)
// Drawn once per process, as in a MongoDB ObjectId: ids one process makes sort in the order it
// made them, so the events of one request (which share a received time) keep their order.
const processRandom = randomBytes(5)

/**
 * A new opaque 24-hex-character id: 4 bytes of seconds since the epoch, 5 random bytes
 * per process and a 3-byte counter (the MongoDB ObjectId layout Bugsnag's ids use), so
 * ids sort by creation time, within a process in the order they were made (save when the
 * counter wraps, once per 16.7 million ids), and keep B-tree inserts local.
 */
export function newId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000
  const buf = Buffer.alloc(12)
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0)
  processRandom.copy(buf, 4)
  buf.writeUIntBE(counter, 9, 3)
  return buf.toString('hex')
}

/** A project API key: 32 lowercase hex characters, as Bugsnag notifiers expect. */
export function newApiKey(): string {
  return randomBytes(16).toString('hex')
}

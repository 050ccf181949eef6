import { randomBytes } from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)

// Random bytes drawn 4 KB at a time: one randomBytes call per id cost more than the rest of
// building it, and ingestion makes one id per event.
const RANDOM_POOL_BYTES = 4096
let randomPool = randomBytes(RANDOM_POOL_BYTES)
let randomOffset = 0

/**
 * A new opaque 24-hex-character id: 4 bytes of seconds since the epoch, 5 random
 * bytes and a 3-byte counter (the MongoDB ObjectId layout Bugsnag's ids use), so
 * ids sort roughly by creation time and keep B-tree inserts local.
 */
export function newId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000
  const buf = Buffer.alloc(12)
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0)
  if (randomOffset + 5 > RANDOM_POOL_BYTES) {
    randomPool = randomBytes(RANDOM_POOL_BYTES)
    randomOffset = 0
  }
  randomPool.copy(buf, 4, randomOffset, randomOffset + 5)
  randomOffset += 5
  buf.writeUIntBE(counter, 9, 3)
  return buf.toString('hex')
}

/** A project API key: 32 lowercase hex characters, as Bugsnag notifiers expect. */
export function newApiKey(): string {
  return randomBytes(16).toString('hex')
}

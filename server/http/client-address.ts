import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'

/**
 * The address of the connection a request came on. Behind a reverse proxy that is the
 * proxy's: forwarded-for headers are not read, since any client can write them.
 */
export function clientAddress(c: Context): string {
  // @hono/node-server passes the Node request as env.incoming; app.request() in tests does not.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming?.socket.remoteAddress ?? 'unknown'
}

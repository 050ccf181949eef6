// Loaded into Errata by test/process/leaked-errors.test.ts (NODE_OPTIONS=--import): a request to
// /leak leaks an exception and a rejection outside any handler, as a bug in a request's code would.
import { Server } from 'node:http'

const emit = Server.prototype.emit
Server.prototype.emit = function (event, ...args) {
  if (event === 'request' && args[0].url === '/leak') {
    setImmediate(() => {
      throw new Error('thrown by the test, outside any handler')
    })
    void Promise.reject(new Error('rejected by the test, with no handler'))
  }
  return emit.call(this, event, ...args)
}

// A real SMTP server for tests (the smtp-server package) on an ephemeral 127.0.0.1 port, with a
// self-signed certificate for localhost made by openssl, offering STARTTLS (or, asked, TLS from the
// start) and requiring a login.
// It keeps what it receives, parsed (mailparser), and refuses every message while `refusing`.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  parsed: ParsedMail
  /** The session was upgraded with STARTTLS (or was TLS from the start). */
  secure: boolean
  user: string | undefined
}

export interface TestSmtpServer {
  port: number
  /** ERRATA_SMTP_URL for it: STARTTLS required, with its login. */
  url: string
  /** ERRATA_SMTP_CA: its self-signed certificate. */
  caFile: string
  received: ReceivedMail[]
  /** Messages refused so far. */
  refusals: number
  refusing: boolean
  /** Resolves with the next message received (or one already there past `count`). */
  nextMail(count?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

export const SMTP_USER = 'errata'
export const SMTP_PASSWORD = 'smtp secret'

/** `implicitTls`: TLS from the first byte (an smtps:// server, port 465's way) instead of STARTTLS. */
export async function startTestSmtpServer(options: { implicitTls?: boolean } = {}): Promise<TestSmtpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'errata-smtp-'))
  const keyFile = join(dir, 'key.pem')
  const caFile = join(dir, 'cert.pem')
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-keyout', keyFile, '-out', caFile, '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' })
  const waiting: Array<() => void> = []
  const state = {
    received: [] as ReceivedMail[],
    refusals: 0,
    refusing: false,
  }
  const server = new SMTPServer({
    secure: options.implicitTls ?? false,
    key: readFileSync(keyFile),
    cert: readFileSync(caFile),
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username })
      return callback(new Error('invalid login'))
    },
    onRcptTo(_address, _session, callback) {
      if (!state.refusing) return callback()
      state.refusals += 1
      const err = new Error('mailbox unavailable') as Error & { responseCode: number }
      err.responseCode = 550
      return callback(err)
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          state.received.push({ parsed, secure: session.secure, user: typeof session.user === 'string' ? session.user : undefined })
          waiting.splice(0).forEach((wake) => wake())
          callback()
        })
        .catch((err: Error) => callback(err))
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    url: options.implicitTls
      ? `smtps://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`
      : `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}?requireTLS=true`,
    caFile,
    get received() {
      return state.received
    },
    get refusals() {
      return state.refusals
    },
    get refusing() {
      return state.refusing
    },
    set refusing(value: boolean) {
      state.refusing = value
    },
    async nextMail(count = state.received.length) {
      while (state.received.length <= count) await new Promise<void>((resolve) => waiting.push(resolve))
      return state.received[count]!
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

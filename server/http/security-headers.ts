import { secureHeaders } from 'hono/secure-headers'

/**
 * Browser protections on every answer (dashboard, assets, API, ingestion). The built dashboard
 * loads only its own files: one module script and one stylesheet from /assets, no <style>;
 * React sets style props through the DOM, which CSP allows. So 'self' is enough everywhere but
 * for the dashboard's document, whose one inline script (the early script, src/first-paint/)
 * its answer allows by its hash (`contentSecurityPolicy`, server/web/static-dashboard.ts). Nothing
 * may frame the dashboard (clickjacking).
 *
 * Only the production server sends these: `npm run dev` serves Vite's own HTML (with its
 * inline HMR scripts) and merely proxies /api here, where the headers have no effect on fetch.
 */
const POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
}

export const securityHeaders = secureHeaders({
  contentSecurityPolicy: POLICY,
  xFrameOptions: 'DENY',
  // Dashboard URLs name projects, errors and filters; links out (an event's request URL) must not carry them.
  referrerPolicy: 'no-referrer',
  // HSTS belongs to whoever terminates TLS: Errata often runs on plain HTTP on a private host,
  // and includeSubDomains from here would bind sibling hosts of the domain to HTTPS.
  strictTransportSecurity: false,
  // A handler's own choice wins (ingestion lets any origin read its answers).
  overwrite: false,
})

/**
 * The same policy as a header value, allowing besides these script sources (the inline scripts
 * of a page, by their `'sha256-…'` hashes): for an answer that sets its own (overwrite is off).
 */
export function contentSecurityPolicy(moreScriptSrc: readonly string[]): string {
  const policy: Record<string, string[]> = { ...POLICY, scriptSrc: [...POLICY.scriptSrc, ...moreScriptSrc] }
  return Object.entries(policy)
    .map(([directive, sources]) => `${directive.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${sources.join(' ')}`)
    .join('; ')
}

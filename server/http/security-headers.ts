import { secureHeaders } from 'hono/secure-headers'

/**
 * Browser protections on every answer (dashboard, assets, API, ingestion). The built dashboard
 * loads only its own files: one module script and one stylesheet from /assets, no inline
 * script or <style>; React sets style props through the DOM, which CSP allows. So 'self' is
 * enough everywhere, and nothing may frame the dashboard (clickjacking).
 *
 * Only the production server sends these: `npm run dev` serves Vite's own HTML (with its
 * inline HMR scripts) and merely proxies /api here, where the headers have no effect on fetch.
 */
export const securityHeaders = secureHeaders({
  contentSecurityPolicy: {
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
  },
  xFrameOptions: 'DENY',
  // Dashboard URLs name projects, errors and filters; links out (an event's request URL) must not carry them.
  referrerPolicy: 'no-referrer',
  // HSTS belongs to whoever terminates TLS: Errata often runs on plain HTTP on a private host,
  // and includeSubDomains from here would bind sibling hosts of the domain to HTTPS.
  strictTransportSecurity: false,
  // A handler's own choice wins (ingestion lets any origin read its answers).
  overwrite: false,
})

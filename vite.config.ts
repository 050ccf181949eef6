import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib'
import { build, defineConfig, type Plugin, type Rolldown } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'

/**
 * The app's own shared code in one file (`app-shared`): the basic components, lib/, the API
 * factories and the contract, the signed-in shell and the filter bar. Split by where each module
 * is used they came in about 40 files of 0.1-4 KB, and gzip'd one by one they were 13 KB larger
 * than together (each file compresses without the others' words), each a request too. The
 * uploads' requests and the symbol files' shapes go with the two pages that use them (the source
 * maps & symbols page, the event page), not into what every page loads.
 */
const APP_SHARED_MODULES = /[\\/](src[\\/](components[\\/]ui|lib|api|features[\\/](layout|filters))|contract)[\\/]/
const PAGE_OWN_MODULES = /[\\/](src[\\/]api[\\/](source-maps|native-symbols|multipart-upload)|contract[\\/](source-maps|native))\.ts$/
const APP_SHARED = (id: string) => APP_SHARED_MODULES.test(id) && !PAGE_OWN_MODULES.test(id)
/**
 * What the sign-in page (src/sign-in-main.tsx) shares with the app (the sign-in request, the token
 * store, the components' classes, lucide's icon base) is a file of its own: a group takes the
 * modules its members import too, and the sign-in page must not load `app-shared` (the
 * bundle-budget check fails if it does). The form itself is not in it: the app needs it only on
 * its /login route. Of lucide's icons, only the form's.
 */
const SIGN_IN_MODULES =
  /[\\/](src[\\/](features[\\/]auth[\\/]sign-in|lib[\\/](route-chunks|token-store|last-project|use-document-title)|components[\\/]ui[\\/]classes)\.tsx?$|node_modules[\\/](clsx|class-variance-authority|lucide-react[\\/]dist[\\/]esm[\\/](?!icons[\\/](?!log-in\.mjs))))/

const apiTarget = process.env.ERRATA_DEV_API ?? 'http://127.0.0.1:8080'

/**
 * Route modules (and the chunks split from them) get `@tanstack/react-router` with our
 * `lazyRouteComponent` (src/lib/lazy-route-component.ts): TanStack's reloads the whole document
 * when a route chunk cannot be fetched, which with the server down replaces the app with the
 * browser's error page. Ours makes it the route's error; RouteError decides Retry or reload.
 */
function routeChunkRecovery(): Plugin {
  const routerWithRecovery = fileURLToPath(new URL('./src/lib/react-router-with-chunk-recovery.ts', import.meta.url))
  const routesDir = fileURLToPath(new URL('./src/routes/', import.meta.url))
  return {
    name: 'errata:route-chunk-recovery',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === '@tanstack/react-router' && importer?.startsWith(routesDir)) return routerWithRecovery
      return null
    },
  }
}

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every compressible file of the build, once,
 * at the highest levels: the server sends them with Content-Encoding (server/web/static-dashboard.ts)
 * instead of compressing on every request.
 */
function precompress(): Plugin {
  let outDir = 'dist'
  return {
    name: 'errata:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory() ? (entry.name.startsWith('.') ? [] : walk(join(dir, entry.name))) : [join(dir, entry.name)],
        )
      for (const file of walk(outDir)) {
        // Smaller files gain nothing worth a second request header; source maps are fetched only by devtools.
        if (!/\.(js|css|html|svg|json|txt)$/.test(file) || statSync(file).size < 1024) continue
        const content = readFileSync(file)
        writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }))
        writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }))
      }
    },
  }
}

/**
 * The page's early script (src/first-paint/main.ts: the first API requests), built on its own into
 * one small classic script and written into index.html's head, so that it runs as the document is
 * parsed: not after a request of its own, nor after the app's modules have arrived and compiled.
 * The server allows it by its hash (server/web/static-dashboard.ts). The dev server loads the
 * source as a module.
 */
const FIRST_REQUESTS_ENTRY = 'src/first-paint/main.ts'
const FIRST_REQUESTS_PLACE = '<!-- first-requests script -->'
function firstRequestsScript(): Plugin {
  let code = ''
  let isBuild = false
  return {
    name: 'errata:first-requests-script',
    configResolved(config) {
      isBuild = config.command === 'build'
    },
    async buildStart() {
      if (!isBuild) return
      const result = (await build({
        configFile: false,
        logLevel: 'warn',
        build: {
          write: false,
          minify: true,
          sourcemap: false,
          lib: { entry: fileURLToPath(new URL(`./${FIRST_REQUESTS_ENTRY}`, import.meta.url)), formats: ['iife'], name: 'errataFirstRequests' },
        },
      })) as Rolldown.RolldownOutput[] | Rolldown.RolldownOutput
      const output = Array.isArray(result) ? result[0]! : result
      const chunk = output.output.find((item): item is Rolldown.OutputChunk => item.type === 'chunk')
      if (!chunk) throw new Error(`building ${FIRST_REQUESTS_ENTRY} gave no script`)
      // Inside <script>, only "</script" (any case) could end it early.
      code = chunk.code.trim().replace(/<\/(script)/gi, '<\\/$1')
    },
    transformIndexHtml: {
      // After Vite's own processing, which would try to bundle the tag.
      order: 'post',
      handler(html) {
        // The app's page names the place (the sign-in page, login.html, starts no requests).
        if (!html.includes(FIRST_REQUESTS_PLACE)) return html
        const tag = isBuild ? `<script>${code}</script>` : `<script type="module" src="/${FIRST_REQUESTS_ENTRY}"></script>`
        return html.replace(FIRST_REQUESTS_PLACE, () => tag)
      },
    },
  }
}

/**
 * The dev server's answer to a page load of /login: the sign-in entry (login.html), as the
 * server sends it in production (server/web/static-dashboard.ts); every other page is index.html.
 */
function signInEntryInDev(): Plugin {
  return {
    name: 'errata:sign-in-entry',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        const [path, query] = (req.url ?? '').split('?', 2)
        if (path === '/login') req.url = `/login.html${query === undefined ? '' : `?${query}`}`
        next()
      })
    },
  }
}

export default defineConfig({
  // The router plugin must come before react() so generated routes are transformed.
  plugins: [
    routeChunkRecovery(),
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      // Only what renders after a successful load is split off. Error and pending components stay
      // in the main bundle: they are needed exactly when chunks cannot be fetched.
      codeSplittingOptions: { defaultBehavior: [['component'], ['notFoundComponent']] },
    }),
    react(),
    tailwindcss(),
    firstRequestsScript(),
    precompress(),
    signInEntryInDev(),
  ],
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: Object.fromEntries(
      ['/api', '/notify', '/sessions', '/healthz', '/readyz', '/sourcemap', '/minidump-symbol', '/ndk-symbol', '/minidump', '/build'].map(
        (path) => [path, { target: apiTarget, changeOrigin: false }],
      ),
    ),
  },
  // The manifest tells the bundle-budget check (scripts/check-bundle-budget.ts) what each page loads.
  // Two pages: the app (index.html) and the sign-in page on its own (login.html, see src/sign-in-main.tsx).
  build: {
    outDir: 'dist',
    sourcemap: true,
    manifest: true,
    rolldownOptions: {
      input: { index: 'index.html', login: 'login.html' },
      // Tailwind's plugin generates the stylesheet without a source map, which the bundler reports
      // on every build; the map of generated CSS would point nowhere useful anyway. Everything else
      // is reported as usual (the first `npm start` prints what the build says).
      onLog(level, log, report) {
        if (log.code === 'SOURCEMAP_BROKEN' && log.plugin?.startsWith('@tailwindcss/vite')) return
        report(level, log)
      },
      output: {
        // Fewer, larger files for what every page of the app loads: split by where each module is
        // used, the shared libraries came in about 15 files, each a request (six at a time over
        // HTTP/1.1) before the first page could run. React stays apart: the sign-in page loads it alone.
        // The sign-in group comes before app-shared so that app-shared does not take its modules.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: 'app-libraries', test: /node_modules[\\/](@tanstack[\\/](react-router|router-core|history|react-store|store|react-query|query-core)|zod|use-sync-external-store)[\\/]/ },
            { name: 'sign-in', test: SIGN_IN_MODULES },
            { name: 'app-shared', test: APP_SHARED },
          ],
        },
      },
    },
  },
})

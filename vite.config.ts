import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'

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
  build: { outDir: 'dist', sourcemap: true },
})

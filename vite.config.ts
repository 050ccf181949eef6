import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'

const apiTarget = process.env.ERRATA_DEV_API ?? 'http://127.0.0.1:8080'

export default defineConfig({
  // The router plugin must come before react() so generated routes are transformed.
  plugins: [tanstackRouter({ target: 'react', autoCodeSplitting: true }), react(), tailwindcss()],
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: Object.fromEntries(
      ['/api', '/notify', '/sessions', '/healthz', '/sourcemap', '/minidump-symbol', '/ndk-symbol', '/minidump', '/build'].map(
        (path) => [path, { target: apiTarget, changeOrigin: false }],
      ),
    ),
  },
  build: { outDir: 'dist', sourcemap: true },
})

import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig, devices } from '@playwright/test'

// The server's port: ERRATA_E2E_PORT when set, else one the system hands out as free (the config
// is read synchronously, hence a short child process asking for port 0). Chosen once by the runner;
// its workers, which read the config again, inherit it through the env.
if (!process.env.ERRATA_E2E_PORT) {
  const askForPort = "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close() })"
  process.env.ERRATA_E2E_PORT = execFileSync(process.execPath, ['-e', askForPort], { encoding: 'utf8' }).trim()
}
const PORT = Number(process.env.ERRATA_E2E_PORT)
const baseURL = `http://127.0.0.1:${PORT}`

// A fresh database for every run. The config is evaluated again in each worker; the first
// evaluation (the runner) picks the directory and the workers inherit it through the env.
if (!process.env.ERRATA_E2E_DATA_DIR) {
  mkdirSync('.tmp', { recursive: true })
  // Databases of earlier runs (older than an hour, so a run in progress is left alone).
  for (const name of readdirSync('.tmp', { withFileTypes: true })) {
    const path = join('.tmp', name.name)
    if (name.isDirectory() && name.name.startsWith('e2e-data-') && Date.now() - statSync(path).mtimeMs > 3_600_000) {
      rmSync(path, { recursive: true, force: true })
    }
  }
  process.env.ERRATA_E2E_DATA_DIR = join('.tmp', `e2e-data-${Date.now()}`)
  rmSync(process.env.ERRATA_E2E_DATA_DIR, { recursive: true, force: true })
}
const dataDir = process.env.ERRATA_E2E_DATA_DIR

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [['list']],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'system-chromium',
      use: {
        ...devices['Desktop Chrome'],
        colorScheme: 'light',
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-quic',
          ],
        },
      },
    },
  ],
  // The real server serving the built dashboard (`npm run test:e2e` runs `vite build` first).
  webServer: {
    command: 'node --import tsx server/main.ts',
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ERRATA_ADMIN_EMAIL: 'admin@example.com',
      ERRATA_ADMIN_PASSWORD: 'e2e-password-123',
      LOG_LEVEL: 'warn',
      // No outside network here: scripts named by events (cdn.example.com) are not fetched for maps.
      ERRATA_FETCH_SOURCES: 'false',
      // The webhooks journey's receiver runs on loopback, allowed as an operator would allow an internal target.
      ERRATA_WEBHOOK_ALLOW: '127.0.0.1',
    },
  },
})

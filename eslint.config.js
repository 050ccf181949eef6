// ESLint flat config. Syntax-level rules only (no type-aware rules), so `npx eslint .` stays fast;
// `npm run typecheck` does the type checking.
import { readdirSync } from 'node:fs'
import { basename } from 'node:path'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import pluginQuery from '@tanstack/eslint-plugin-query'
import globals from 'globals'

const KEBAB_FILE = /^[a-z0-9]+(?:[-.][a-z0-9]+)*\.(?:ts|tsx|js|mjs)$/
// TanStack Router file names: dot-separated segments such as `$projectId`, `__root`, `_auth`, `(group)`, `index`, `route`;
// a trailing `_` (`$organizationId_`) un-nests a route from its parent's layout.
const ROUTE_SEGMENT = /^(?:\$[a-zA-Z0-9]*_?|_{1,2}[a-z0-9-]+|\([a-z0-9-]+\)|-?[a-z0-9]+(?:-[a-z0-9]+)*_?)$/
const ROUTE_FILE = /^(.+)\.(?:ts|tsx)$/

/** Local rules: kebab-case file names (CONVENTIONS: "kebab-case files") and no barrel index files. */
const localPlugin = {
  rules: {
    'file-names': {
      meta: { type: 'suggestion', schema: [] },
      create(context) {
        const path = context.filename.replaceAll('\\', '/')
        const name = basename(path)
        const inRoutes = /(^|\/)src\/routes\//.test(path)
        let problem
        if (inRoutes) {
          const match = ROUTE_FILE.exec(name)
          if (!match || !match[1].split('.').every((segment) => ROUTE_SEGMENT.test(segment))) {
            problem = `route file "${name}" must use TanStack Router segments ($param, __root, _layout, index, route, kebab-case)`
          }
        } else if (/^index\.tsx?$/.test(name) && /(^|\/)(src|server|contract)\//.test(path)) {
          problem = `no barrel files: import from the module itself, not "${name}"`
        } else if (!KEBAB_FILE.test(name)) {
          problem = `file name "${name}" must be kebab-case`
        }
        return {
          Program(node) {
            if (problem) context.report({ node, message: problem })
          },
        }
      },
    },
  },
}

/** Features every feature may import: the app's frame and the filter bar. */
const SHARED_FEATURES = ['layout', 'filters']
/** Single modules of other features that any feature may import (each a small shared piece). */
const SHARED_MODULES = [
  'collaborators/use-is-admin\\.ts',
  'settings/rename-form\\.tsx',
  'settings/delete-by-name-dialog\\.tsx',
  'projects/project-nav\\.tsx',
  'pivots/to-pivot-filter\\.ts',
  // Where the errors list was left: the header's link and the error page's "next error" return to it.
  'errors/errors-list-return\\.ts',
]
/** Pages that compose other features, and what they compose. */
const FEATURE_COMPOSES = {
  errors: ['events', 'projects', 'trends', 'triage'],
  // The event page shows its error's badges.
  events: ['errors'],
  pivots: ['privacy'],
  releases: ['stability'],
  // The stability page draws its rate over time with the trends' windows and resolutions.
  stability: ['trends'],
}

/** no-restricted-imports patterns for one direction of the layering in CONVENTIONS.md. */
const forbid = (regex, message) => ({ regex, message })
const restrictImports = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] })
const NO_DASHBOARD = forbid('^(\\.\\./)+src(/|$)', 'the server never imports the dashboard (src/).')
/** A stream's 'error' that nothing listens for stops the process; pipe() forwards none. */
const NO_PIPE = {
  selector: "CallExpression[callee.property.name='pipe'][callee.object.name!='z']",
  message:
    "pipe() forwards no errors: a failing source leaves the destination waiting, and an 'error' nothing listens for stops the process. Use pipeline() from node:stream/promises.",
}
const OUTBOUND_ONLY_THERE = 'outbound HTTP goes through server/outbound/request.ts: a deadline for the whole request, a byte cap, the address guard.'
/** The dashboard and the contract it shares use zod/mini: classic zod is the whole library (about 27 KB gzip) on every page. */
const NO_CLASSIC_ZOD = forbid('^zod$', "import { z } from 'zod/mini' (docs/architecture.md, code layout): classic zod would load the whole library into the dashboard.")

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'src/routeTree.gen.ts',
      'test-results/',
      'playwright-report/',
      'blob-report/',
      'data/',
      '.tmp/',
      'bench/.data/',
      // Third-party shaped input (minified bundles and the sources they were built from).
      'test/fixtures/',
    ],
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    plugins: { local: localPlugin },
    rules: {
      'local/file-names': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended, ...pluginQuery.configs['flat/recommended']],
    languageOptions: { globals: { ...globals.browser } },
  },

  // Import direction: contract ← server; contract ← src/api ← src/features ← src/routes.
  {
    files: ['contract/**'],
    rules: restrictImports(forbid('^(\\.\\./)+(server|src)(/|$)', 'contract/ is the wire format: it imports neither server/ nor src/.'), NO_CLASSIC_ZOD),
  },
  {
    files: ['server/**'],
    rules: {
      ...restrictImports(NO_DASHBOARD),
      'no-restricted-syntax': ['error', NO_PIPE],
    },
  },
  // Zones inside server/ (docs/architecture.md): the database layer is a plain adapter, and the
  // job runner and rollups sit on it alone, so ingestion and features build on them, never the reverse.
  {
    files: ['server/db/**'],
    ignores: ['**/*.test.ts'],
    rules: restrictImports(NO_DASHBOARD, forbid('^\\.\\./(?!(logger|thread)\\.ts$)', 'server/db is the database adapter: it imports nothing of server/ but logger.ts and thread.ts.')),
  },
  {
    files: ['server/jobs/**', 'server/rollups/**'],
    ignores: ['**/*.test.ts'],
    rules: restrictImports(NO_DASHBOARD, forbid('^\\.\\./(?!db/|clock\\.ts$|filters/)', 'the job runner and the rollups build on server/db (and the filters) alone.')),
  },
  // Ingestion's stages (docs/ingestion.md): accept → log → process → index, each importing only
  // the stages after it and the shapes they share (ingest/payload/); pipeline/ runs them all.
  ...[
    ['accept', 'pipeline'],
    ['log', 'accept|pipeline'],
    ['process', 'accept|log|pipeline'],
    ['index', 'accept|log|process|pipeline'],
    ['payload', 'accept|log|process|index|pipeline'],
  ].map(([stage, before]) => ({
    files: [`server/ingest/${stage}/**`],
    ignores: ['**/*.test.ts'],
    rules: restrictImports(NO_DASHBOARD, forbid(`^\\.\\./(${before})/`, `server/ingest/${stage} imports only the stages after it (accept → log → process → index) and ingest/payload/.`)),
  })),
  // Outbound HTTP (docs/operations.md, "Outbound requests"): only through outboundRequest, which
  // bounds every request's whole time and the bytes it reads and guards the addresses it reaches.
  {
    files: ['server/**/*.ts'],
    // The backup command reaches only the server's operator socket, a Unix socket in DATA_DIR.
    ignores: ['**/*.test.ts', 'server/test-support/**', 'server/outbound/request.ts', 'server/cli/backup.command.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: OUTBOUND_ONLY_THERE }],
      'no-restricted-properties': [
        'error',
        ...[['http', 'request'], ['http', 'get'], ['https', 'request'], ['https', 'get'], ['net', 'connect'], ['net', 'createConnection'], ['tls', 'connect']].map(
          ([object, property]) => ({ object, property, message: OUTBOUND_ONLY_THERE }),
        ),
      ],
      // With NO_PIPE again: a later config's rule replaces an earlier one's options.
      'no-restricted-syntax': [
        'error',
        NO_PIPE,
        { selector: 'ImportDeclaration[source.value=/^(node:)?(https|http2|undici)$/]', message: OUTBOUND_ONLY_THERE },
        { selector: 'ImportDeclaration[source.value=/^(node:)?http$/] > ImportSpecifier[imported.name=/^(request|get)$/]', message: OUTBOUND_ONLY_THERE },
      ],
    },
  },
  // Services are called with what the edge resolved (a user, a scope): they never see the request.
  {
    files: ['server/**/*.service.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_DASHBOARD,
            forbid('^hono(/|$)', 'services do not know about HTTP: routes read the request and call them.'),
            forbid('/http/errors\\.ts$', 'services throw the failures of server/failures.ts; only the HTTP layer maps them to statuses.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/**'],
    ignores: ['src/api/**', 'src/features/**'],
    rules: restrictImports(forbid('^(\\.\\./)+server(/|$)', 'the dashboard never imports server/; share types through contract/.'), NO_CLASSIC_ZOD),
  },
  {
    files: ['src/api/**'],
    rules: restrictImports(
      forbid('^(\\.\\./)+server(/|$)', 'the dashboard never imports server/; share types through contract/.'),
      forbid('^(\\.\\./)+(features|routes)(/|$)', 'src/api is below features and routes: it may not import them.'),
      NO_CLASSIC_ZOD,
    ),
  },
  // Between feature folders (docs/architecture.md, "Dashboard data layer"): a feature imports
  // src/api, src/lib, src/components, contract/, the shared features, the shared modules, and the
  // features it composes as declared here; nothing else of another feature.
  ...readdirSync(new URL('./src/features/', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name }) => ({
      files: [`src/features/${name}/**`],
      rules: restrictImports(
        forbid('^(\\.\\./)+server(/|$)', 'the dashboard never imports server/; share types through contract/.'),
        forbid('^(\\.\\./)+routes(/|$)', 'features may not import routes; routes compose features.'),
        NO_CLASSIC_ZOD,
        forbid(
          `^\\.\\./(?!(?:${[...SHARED_FEATURES, ...(FEATURE_COMPOSES[name] ?? [])].join('|')})/|(?:${SHARED_MODULES.join('|')})$)[a-z0-9-]+/`,
          `features/${name} may import of other features only ${[...SHARED_FEATURES, ...(FEATURE_COMPOSES[name] ?? [])].join(', ')} and the shared modules (eslint.config.js, SHARED_MODULES): move shared code to src/lib, src/components or src/api, or declare the composition in FEATURE_COMPOSES.`,
        ),
      ),
    })),
)

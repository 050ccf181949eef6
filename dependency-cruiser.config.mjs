// Import structure of server/ that ESLint's per-file rules cannot see (`npm run lint` runs it).
// Type-only imports count: a cycle of types still ties the modules' design together.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'server/ has no import cycles, type-only ones included: move the shared types below both modules.',
      from: { path: '^server/' },
      to: { circular: true },
    },
    {
      name: 'ground-floor',
      severity: 'error',
      comment:
        'server/config.ts and server/context.ts are the ground floor every subsystem imports: they import only the database adapter, the allow-list and free-disk threshold parsers and the accepted-request record type; declare the types of what they carry there and let the subsystem implement them.',
      from: { path: '^server/(config|context)\\.ts$' },
      to: { path: '^server/', pathNot: '^server/(config\\.ts|db/|outbound/allow-list\\.ts|storage/min-free-disk\\.ts|ingest/payload/accepted-request\\.ts)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' subpath exports (hono/cookie) resolve as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}

import type { FeatureFlag } from '../../../contract/events.ts'

export function FeatureFlags({ flags }: { flags: readonly FeatureFlag[] }) {
  if (flags.length === 0) return <p className="text-sm text-muted-foreground">No feature flags were active.</p>
  return (
    <table className="w-full text-sm">
      <caption className="sr-only">Feature flags active during this event</caption>
      <thead>
        <tr className="text-left text-xs text-muted-foreground">
          <th scope="col" className="pb-1 font-medium">
            Flag
          </th>
          <th scope="col" className="pb-1 font-medium">
            Variant
          </th>
        </tr>
      </thead>
      <tbody>
        {flags.map((flag, index) => (
          <tr key={`${flag.name}-${index}`} className="border-t border-border">
            <td className="py-1 pr-3 font-mono text-xs [overflow-wrap:anywhere]">{flag.name}</td>
            <td className="py-1 font-mono text-xs [overflow-wrap:anywhere]">
              {flag.variant ?? <span className="text-muted-foreground">(none)</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

import { Gauge } from 'lucide-react'
import { SEVERITIES, type Severity } from '../../../contract/errors.ts'
import { MenuButton } from './menu.tsx'

/** Override the severity the events report (the server has no "clear override"; choose again to change). */
export function SeverityMenu({ severity, onChange }: { severity: Severity; onChange: (severity: Severity) => void }) {
  return (
    <MenuButton
      menuLabel="Severity"
      items={SEVERITIES.map((value) => ({
        id: value,
        label: value,
        checked: value === severity,
        onSelect: () => onChange(value),
      }))}
      buttonProps={{ 'aria-label': `Severity: ${severity}` }}
    >
      <Gauge aria-hidden="true" />
      Severity
    </MenuButton>
  )
}

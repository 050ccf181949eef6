import { formatBytes } from '../../lib/format-bytes.ts'

/** An upload's progress bar; at 100 % the server is still checking what it received (`checking`: what it checks). */
export function UploadProgress({ sent, total, checking = 'the map' }: { sent: number; total: number; checking?: string }) {
  const percent = total > 0 ? Math.round((sent / total) * 100) : 0
  return (
    <div className="flex flex-col gap-1">
      <div
        role="progressbar"
        aria-label="Upload progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% (${formatBytes(sent)} of ${formatBytes(total)})`}
        className="h-2 overflow-hidden rounded-full bg-surface-muted"
      >
        <div className="h-full bg-accent transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <p className="text-xs text-muted-foreground tabular-nums">
        {percent < 100 ? `Uploading… ${percent}% of ${formatBytes(total)}` : `Uploaded; the server is checking ${checking}…`}
      </p>
    </div>
  )
}

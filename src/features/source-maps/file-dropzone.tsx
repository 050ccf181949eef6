import { Upload } from 'lucide-react'
import { useDropzone } from 'react-dropzone'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'

/**
 * The one wrapper of react-dropzone: an area files are dropped on, also a button that opens the
 * file picker (Enter or Space), and a visible file input label for screen readers.
 */
export function FileDropzone({
  onFiles,
  disabled = false,
  label,
  hint,
  className,
}: {
  onFiles: (files: File[]) => void
  disabled?: boolean
  /** What to drop, read as the area's accessible name. */
  label: string
  hint?: React.ReactNode
  className?: string
}) {
  const { getRootProps, getInputProps, isDragActive } = useDropzone({
    onDrop: (accepted) => {
      if (accepted.length > 0) onFiles(accepted)
    },
    multiple: true,
    disabled,
  })
  return (
    <div
      {...getRootProps({
        role: 'button',
        'aria-label': label,
        'aria-disabled': disabled || undefined,
        className: cn(
          'flex cursor-pointer flex-col items-center justify-center gap-1 rounded-lg border-2 border-dashed border-border bg-surface-muted/40 px-4 py-6 text-center text-sm transition-colors hover:border-accent focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent',
          isDragActive && 'border-accent bg-accent-soft/40',
          disabled && 'cursor-not-allowed opacity-60',
          className,
        ),
      })}
    >
      <input {...getInputProps({ 'aria-label': label })} />
      <Upload aria-hidden="true" className="size-5 text-muted-foreground" />
      <span className="font-medium text-foreground">{isDragActive ? 'Drop the files here' : label}</span>
      {hint ? <span className="text-xs text-muted-foreground">{hint}</span> : null}
    </div>
  )
}

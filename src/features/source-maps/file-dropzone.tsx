import { Upload } from 'lucide-react'
import { useId } from 'react'
import { useDropzone } from 'react-dropzone'
import type * as React from 'react'
import { cn } from '../../lib/cn.ts'
import { Button } from '../../components/ui/button.tsx'

/**
 * The one wrapper of react-dropzone: an area files are dropped on, with a real button that opens
 * the file picker (the area itself is not a control, so nothing interactive nests in another).
 */
export function FileDropzone({
  onFiles,
  disabled = false,
  label,
  hint,
  multiple = true,
  className,
}: {
  onFiles: (files: File[]) => void
  disabled?: boolean
  /** What to drop: the area's name. */
  label: string
  hint?: React.ReactNode
  /** False: one file at a time (the first of several dropped), and the button says "Choose a file". */
  multiple?: boolean
  className?: string
}) {
  const labelId = useId()
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    onDrop: (accepted) => {
      if (accepted.length > 0) onFiles(accepted)
    },
    multiple,
    disabled,
    noClick: true,
    noKeyboard: true,
  })
  return (
    <div
      {...getRootProps({
        role: 'group',
        'aria-labelledby': labelId,
        className: cn(
          'flex flex-col items-center justify-center gap-1.5 rounded-lg border-2 border-dashed px-4 py-6 text-center text-sm transition-colors',
          isDragActive ? 'border-accent bg-accent-soft/40' : 'border-border bg-surface-muted/40',
          disabled && 'opacity-60',
          className,
        ),
      })}
    >
      {/* The picker the button opens: out of the tab order and the accessibility tree. */}
      <input {...getInputProps({ 'aria-hidden': true })} />
      <Upload aria-hidden="true" className="size-5 text-muted-foreground" />
      <span id={labelId} className="font-medium text-foreground">
        {isDragActive ? (multiple ? 'Drop the files here' : 'Drop the file here') : label}
      </span>
      <Button size="sm" onClick={open} disabled={disabled}>
        {multiple ? 'Choose files' : 'Choose a file'}
      </Button>
      {hint ? <span className="text-xs text-muted-foreground">{hint}</span> : null}
    </div>
  )
}

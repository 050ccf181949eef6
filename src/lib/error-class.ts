/** An error class as shown: notifiers may send none (an anonymous class), which must not leave an empty heading. */
export function errorClassLabel(errorClass: string | null | undefined): string {
  return errorClass ? errorClass : '(no class name)'
}

/** Long enough for any real class name; a longer one is cut in labels that name other things by it. */
const NAME_CHARS = 200

/** The class label cut to NAME_CHARS, for accessible names ("Stack frames of …") that must stay listenable. */
export function shortErrorClassLabel(errorClass: string | null | undefined): string {
  const label = errorClassLabel(errorClass)
  return label.length > NAME_CHARS ? `${label.slice(0, NAME_CHARS)}…` : label
}

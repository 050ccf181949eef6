/** An error class as shown: notifiers may send none (an anonymous class), which must not leave an empty heading. */
export function errorClassLabel(errorClass: string | null | undefined): string {
  return errorClass ? errorClass : '(no class name)'
}

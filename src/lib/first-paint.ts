// The page's shell (index.html's #first-paint, and the errors list's rows painted into it by
// src/first-paint/) stays on screen until the app's first page has rendered: until then the app
// renders unseen under it (index.css), so its loading states (an empty first commit, the route's
// pending view) never replace rows that are already shown.

/** The app's first page has rendered: it takes the shell's place. */
export function removeFirstPaintShell(): void {
  document.getElementById('first-paint')?.remove()
}

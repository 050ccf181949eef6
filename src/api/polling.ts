// How often views look again on their own: in one place, so the polls stay consistent and cheap.

/** How often a view with nothing in it yet looks again (a project waiting for its first events). */
export const EMPTY_POLL_MS = 3_000

/** How often an open errors list asks whether it has changed (one row and the total, not the list). */
export const LIST_POLL_MS = 30_000

/** How often an admin's dashboard asks whether the server is low on disk space (the banner). */
export const STORAGE_POLL_MS = 60_000

// What Errata keeps in DATA_DIR beside the embedded database's own files (which PGlite lays out
// at the top of the directory): named once, for the code that writes them and for backups.
import { join } from 'node:path'

/** The accepted-event log of the embedded database (server/ingest/log/journal.ts). */
export const journalDir = (dataDir: string) => join(dataDir, 'ingest-journal')

/** Privacy retrieval output files on the embedded database (server/privacy/retrieval-files.ts). */
export const eventDataDir = (dataDir: string) => join(dataDir, 'event-data')
/** How a finished retrieval file's name ends there (`.partial` while it is written). */
export const RETRIEVAL_FILE_SUFFIX = '.jsonl.gz'

/** The running server's operator socket (server/backup/backup-socket.ts). */
export const operatorSocketPath = (dataDir: string) => join(dataDir, 'errata.sock')

// The early script's entry (vite.config.ts builds it into a classic script written into index.html).
import { startFirstRequests } from './first-requests.ts'

startFirstRequests()

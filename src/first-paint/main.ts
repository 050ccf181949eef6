// The early script's entry (vite.config.ts builds it into a classic script of its own).
import { startFirstRequests } from './first-requests.ts'

startFirstRequests()

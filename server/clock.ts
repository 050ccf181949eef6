/** The time as the server sees it; injected where tests need to move it (privacy expiry, job schedules). */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

/**
 * The delays before each retry of a delivery, in seconds (Standard Webhooks'
 * suggestion): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts over
 * 27.6 hours; a delivery whose eighth fails is failed.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

const scheduleSeconds = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

/** Whole days that hold every retry of a delivery: EVENT_RETENTION_DAYS is at least this. */
export const RETRY_SCHEDULE_DAYS = Math.ceil(scheduleSeconds / 86_400);

/** The schedule as the configuration's refusal names it: `tried 8 times over 27.6 hours`. */
export const RETRY_SCHEDULE = `tried ${RETRY_DELAYS_SECONDS.length + 1} times over ${(scheduleSeconds / 3600).toFixed(1)} hours`;

/**
 * What the MCP tools get_daily_report, get_person_timeline and get_open_sessions answer
 * with, and the midnight job that stores each day's reports (docs/decisions.md, "Daily
 * reports, timeline, open sessions").
 */
export { dailyReport, buildDailyReport, storeMissingReports, CATCH_UP_DAYS, type DailyReport } from "./daily-report";
export type { AlertsSection, LocationsSection, ReportActivity, ReportOccurrence, ReportSession, SightingsSection, SleepSection } from "./daily-report";
export { personTimeline, TIMELINE_DEFAULT_MINUTES, TIMELINE_MAX_MINUTES, TIMELINE_MAX_ENTRIES, type TimelineEntry } from "./timeline";
export { openSessions, pairSessions, sessionEdge, OPEN_SESSION_LOOKBACK_HOURS, type ActivitySession, type PairedSession, type SessionEdge } from "./sessions";
export { startDailyReports, type DailyReportJob } from "./midnight-job";

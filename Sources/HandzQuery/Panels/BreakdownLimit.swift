/// How many values of a breakdown a dashboard shows (issue 32 §3): the top values by the
/// panel's own measure, then one "other" that aggregates the rest.
///
/// Why a limit: the number of values is chosen by whoever sends events — `app_version` is the
/// phone's, and 50,000 distinct versions in one range made a 357 MB page — and every analytics UI
/// bounds it the same way: PostHog keeps 25 values and an "Other", Amplitude keeps the top
/// groups by uniques and charts ten. Eight here, because each value is a whole table on a page
/// (a funnel draws one table per value, twice as wide with the comparison) and the charts have
/// eight distinguishable colours. The CLI (`funnel --breakdown`) and the SQL of every dialect
/// list every value; the pages, the explorer and `dashboard render` show eight and "other".
public enum BreakdownLimit {
    /// Values shown before "other".
    public static let values = 8
}

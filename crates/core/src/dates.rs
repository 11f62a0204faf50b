//! Dates people and agents type: ISO 8601 or a few natural phrases.
//!
//! Everything is resolved against a "now" in the user's time zone, so `yesterday` means the
//! local calendar day and day arithmetic survives daylight-saving changes. Accepted forms:
//!
//! | form | meaning |
//! | --- | --- |
//! | `2026-03-01`, `2026-03-01T09:30`, `2026-03-01 09:30`, `2026-03-01T09:30:00Z`, `…+02:00` | ISO 8601 (date alone = start of that day) |
//! | `now`, `today`, `yesterday`, `tomorrow` | now, or the start of that day |
//! | `3 days ago`, `an hour ago`, `2 weeks ago` | seconds, minutes, hours, days, weeks, months, years |
//! | `in 3 days`, `in 2 weeks`, `in a month` | the same, forward |
//! | `next friday`, `last monday` | the first such day strictly after (before) today, at its start |
//! | `next week`, `last month`, … | one unit forward or back |
//! | any day form + a time: `tomorrow 9am`, `next friday at 17:30`, `today noon` | that day at that time |
//!
//! A bare duration such as `3 days` is refused with a hint, since it could mean either direction.

use jiff::civil::{Date, DateTime, Time, Weekday};
use jiff::{Span, Timestamp, Zoned};

use crate::error::Error;

const HINT: &str = "use an ISO date (2026-03-01 or 2026-03-01T09:30:00Z) or a phrase such as \
                    'yesterday', '3 days ago', 'in 2 weeks', 'next friday', 'tomorrow 9am'";

/// Parses `text` for the field named `field`, resolving relative phrases against `now`.
pub fn parse_time(field: &str, text: &str, now: &Zoned) -> Result<Timestamp, Error> {
    parse(text.trim(), now).map_err(|reason| {
        let reason = reason.map(|r| format!("{r}; ")).unwrap_or_default();
        Error::invalid(
            field,
            format!("cannot read '{}' as a date: {reason}{HINT}", text.trim()),
        )
    })
}

/// `Err(Some(reason))` carries a specific reason; `Err(None)` means "not a form we know".
fn parse(text: &str, now: &Zoned) -> Result<Timestamp, Option<String>> {
    if text.is_empty() {
        return Err(Some("it is empty".into()));
    }
    if let Some(ts) = parse_iso(text, now)? {
        return Ok(ts);
    }
    let lowered = text.to_lowercase();
    let words: Vec<&str> = lowered.split_whitespace().collect();
    parse_words(&words, now)
}

fn parse_iso(text: &str, now: &Zoned) -> Result<Option<Timestamp>, Option<String>> {
    if !text.starts_with(|c: char| c.is_ascii_digit()) || !text.contains('-') {
        return Ok(None);
    }
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(Some(ts));
    }
    let local = |dt: DateTime| {
        dt.to_zoned(now.time_zone().clone())
            .map(|z| Some(z.timestamp()))
            .map_err(|e| Some(e.to_string()))
    };
    if let Ok(dt) = text.parse::<DateTime>() {
        return local(dt);
    }
    match text.parse::<Date>() {
        Ok(date) => local(date.to_datetime(Time::midnight())),
        Err(e) => Err(Some(format!("not a valid ISO 8601 date ({e})"))),
    }
}

fn parse_words(words: &[&str], now: &Zoned) -> Result<Timestamp, Option<String>> {
    match words {
        ["now"] => Ok(now.timestamp()),
        [n, unit, "ago"] => shift(now, amount(n)?, unit, -1),
        ["in", n, unit] => shift(now, amount(n)?, unit, 1),
        [n, unit] if amount(n).is_ok() && unit_span(unit, 1).is_some() => {
            Err(Some(format!("say 'in {n} {unit}' or '{n} {unit} ago'")))
        }
        ["next", unit] | ["last", unit] if unit_span(unit, 1).is_some() => {
            shift(now, 1, unit, if words[0] == "next" { 1 } else { -1 })
        }
        _ => {
            let (day, rest) = parse_day(words, now)?;
            let time = parse_time_of_day(rest)?;
            day.to_datetime(time)
                .to_zoned(now.time_zone().clone())
                .map(|z| z.timestamp())
                .map_err(|e| Some(e.to_string()))
        }
    }
}

/// A day phrase at the start of `words`, and the words left after it.
fn parse_day<'a>(
    words: &'a [&'a str],
    now: &Zoned,
) -> Result<(Date, &'a [&'a str]), Option<String>> {
    let today = now.date();
    let step = |date: Date, days: i64| {
        date.checked_add(Span::new().days(days))
            .map_err(|e| Some(e.to_string()))
    };
    match words {
        ["today", rest @ ..] => Ok((today, rest)),
        ["yesterday", rest @ ..] => Ok((step(today, -1)?, rest)),
        ["tomorrow", rest @ ..] => Ok((step(today, 1)?, rest)),
        [dir @ ("next" | "last"), day, rest @ ..] => {
            let weekday = weekday(day).ok_or(None)?;
            let forward = *dir == "next";
            let mut date = today;
            loop {
                date = step(date, if forward { 1 } else { -1 })?;
                if date.weekday() == weekday {
                    return Ok((date, rest));
                }
            }
        }
        _ => Err(None),
    }
}

/// `[]` (start of day), `9am`, `9:30pm`, `17:30`, `noon`, `midnight`, optionally after `at`.
fn parse_time_of_day(words: &[&str]) -> Result<Time, Option<String>> {
    let joined = match words {
        [] => return Ok(Time::midnight()),
        ["at", rest @ ..] => rest.concat(),
        rest => rest.concat(),
    };
    match joined.as_str() {
        "noon" => return Ok(Time::constant(12, 0, 0, 0)),
        "midnight" => return Ok(Time::midnight()),
        _ => {}
    }
    let (clock, meridiem) = if let Some(c) = joined.strip_suffix("am") {
        (c, Some(false))
    } else if let Some(c) = joined.strip_suffix("pm") {
        (c, Some(true))
    } else {
        (joined.as_str(), None)
    };
    let (hour, minute) = match clock.split_once(':') {
        Some((h, m)) => (h.parse::<i8>().ok(), m.parse::<i8>().ok()),
        None => (clock.parse::<i8>().ok(), Some(0)),
    };
    let (Some(mut hour), Some(minute)) = (hour, minute) else {
        return Err(None);
    };
    if let Some(pm) = meridiem {
        if !(1..=12).contains(&hour) {
            return Err(Some(format!("'{joined}' is not a time of day")));
        }
        hour = match (hour, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, true) => h + 12,
            (h, false) => h,
        };
    } else if !clock.contains(':') {
        return Err(Some(format!(
            "write '{joined}' as '{joined}:00', '{joined}am' or '{joined}pm'"
        )));
    }
    Time::new(hour, minute, 0, 0).map_err(|_| Some(format!("'{joined}' is not a time of day")))
}

fn amount(word: &str) -> Result<i64, Option<String>> {
    match word {
        "a" | "an" | "one" => Ok(1),
        _ => word
            .parse::<i64>()
            .ok()
            .filter(|n| (0..=100_000).contains(n))
            .ok_or(None),
    }
}

fn unit_span(unit: &str, n: i64) -> Option<Span> {
    let span = Span::new();
    Some(match unit.trim_end_matches('s') {
        "second" | "sec" => span.seconds(n),
        "minute" | "min" => span.minutes(n),
        "hour" | "hr" => span.hours(n),
        "day" => span.days(n),
        "week" | "wk" => span.weeks(n),
        "month" | "mo" => span.months(n),
        "year" | "yr" => span.years(n),
        _ => return None,
    })
}

fn shift(now: &Zoned, n: i64, unit: &str, direction: i64) -> Result<Timestamp, Option<String>> {
    let span = unit_span(unit, n * direction).ok_or(None)?;
    now.checked_add(span)
        .map(|z| z.timestamp())
        .map_err(|e| Some(e.to_string()))
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" | "mon" => Weekday::Monday,
        "tuesday" | "tue" | "tues" => Weekday::Tuesday,
        "wednesday" | "wed" => Weekday::Wednesday,
        "thursday" | "thu" | "thurs" => Weekday::Thursday,
        "friday" | "fri" => Weekday::Friday,
        "saturday" | "sat" => Weekday::Saturday,
        "sunday" | "sun" => Weekday::Sunday,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wednesday 2026-03-11 14:05 in Berlin (UTC+1 before the DST change on 2026-03-29).
    fn now() -> Zoned {
        "2026-03-11T14:05:00+01:00[Europe/Berlin]".parse().unwrap()
    }

    fn at(text: &str) -> String {
        let ts = parse_time("when", text, &now()).unwrap_or_else(|e| panic!("{text}: {e}"));
        ts.to_zoned(now().time_zone().clone())
            .strftime("%Y-%m-%d %H:%M %a")
            .to_string()
    }

    #[test]
    fn each_documented_form_resolves_to_the_expected_local_time() {
        let table = [
            ("now", "2026-03-11 14:05 Wed"),
            ("today", "2026-03-11 00:00 Wed"),
            ("yesterday", "2026-03-10 00:00 Tue"),
            ("tomorrow", "2026-03-12 00:00 Thu"),
            ("tomorrow 9am", "2026-03-12 09:00 Thu"),
            ("tomorrow at 9:30pm", "2026-03-12 21:30 Thu"),
            ("today noon", "2026-03-11 12:00 Wed"),
            ("today 17:30", "2026-03-11 17:30 Wed"),
            ("3 days ago", "2026-03-08 14:05 Sun"),
            ("an hour ago", "2026-03-11 13:05 Wed"),
            ("2 weeks ago", "2026-02-25 14:05 Wed"),
            ("1 month ago", "2026-02-11 14:05 Wed"),
            ("in 3 days", "2026-03-14 14:05 Sat"),
            ("in 2 weeks", "2026-03-25 14:05 Wed"),
            ("in a year", "2027-03-11 14:05 Thu"),
            ("next friday", "2026-03-13 00:00 Fri"),
            ("next wednesday", "2026-03-18 00:00 Wed"),
            ("last monday", "2026-03-09 00:00 Mon"),
            ("next friday at 17:30", "2026-03-13 17:30 Fri"),
            ("next week", "2026-03-18 14:05 Wed"),
            ("Next Friday", "2026-03-13 00:00 Fri"),
            ("2026-04-01", "2026-04-01 00:00 Wed"),
            ("2026-04-01T09:30", "2026-04-01 09:30 Wed"),
            ("2026-04-01 09:30", "2026-04-01 09:30 Wed"),
            ("2026-04-01T07:30:00Z", "2026-04-01 09:30 Wed"),
            ("2026-04-01T09:30:00+02:00", "2026-04-01 09:30 Wed"),
        ];
        for (input, expected) in table {
            assert_eq!(at(input), expected, "{input}");
        }
    }

    #[test]
    fn day_arithmetic_crosses_daylight_saving_by_calendar_days() {
        // 2026-03-29 is the spring-forward day in Berlin: "in 3 weeks" keeps the wall clock.
        assert_eq!(at("in 3 weeks"), "2026-04-01 14:05 Wed");
    }

    #[test]
    fn unreadable_dates_name_the_field_and_show_examples() {
        for bad in [
            "",
            "next fridya",
            "3 days",
            "2026-13-01",
            "tomorrow 25:00",
            "tomorrow 9",
            "soon",
        ] {
            let err = parse_time("expires", bad, &now()).unwrap_err();
            assert_eq!(err.field(), Some("expires"), "{bad}");
            assert!(err.to_string().contains("in 2 weeks"), "{bad}: {err}");
        }
        let bare = parse_time("expires", "3 days", &now())
            .unwrap_err()
            .to_string();
        assert!(bare.contains("'in 3 days' or '3 days ago'"), "{bare}");
    }
}

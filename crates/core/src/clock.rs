//! The service's notion of "now", injectable so expiry can be tested without sleeping.
//!
//! Times are kept to the millisecond: that is what the stores keep, so a value read back equals
//! the value written, and export → import is lossless.

use std::sync::{Arc, Mutex};

use jiff::tz::TimeZone;
use jiff::{Span, Timestamp, Zoned};

/// A source of the current time in the user's time zone: the instant and the zone apart, so
/// that a caller who needs only the instant (most writes) never looks the zone up (finding the
/// system's zone by name walks the whole zoneinfo directory once per process, a tenth of what
/// an agent hook's process costs).
#[derive(Clone)]
pub struct Clock {
    instant: Arc<dyn Fn() -> Timestamp + Send + Sync>,
    zone: Arc<dyn Fn() -> TimeZone + Send + Sync>,
}

impl Clock {
    /// The system clock in the system time zone.
    pub fn system() -> Self {
        Clock {
            instant: Arc::new(Timestamp::now),
            zone: Arc::new(TimeZone::system),
        }
    }

    /// A clock that a test moves by hand.
    pub fn manual(start: Zoned) -> (Self, ManualClock) {
        let handle = ManualClock(Arc::new(Mutex::new(start)));
        let (instant, zone) = (handle.clone(), handle.clone());
        let clock = Clock {
            instant: Arc::new(move || instant.0.lock().expect("clock lock").timestamp()),
            zone: Arc::new(move || zone.0.lock().expect("clock lock").time_zone().clone()),
        };
        (clock, handle)
    }

    /// Now as an instant, to the millisecond (what stores compare against).
    pub fn timestamp(&self) -> Timestamp {
        Timestamp::from_millisecond((self.instant)().as_millisecond())
            .expect("a millisecond of a valid timestamp is valid")
    }

    /// Now in the user's time zone, to the millisecond.
    pub fn now(&self) -> Zoned {
        self.timestamp().to_zoned((self.zone)())
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Clock({})", self.now())
    }
}

/// The handle that moves a [`Clock::manual`] clock.
#[derive(Clone)]
pub struct ManualClock(Arc<Mutex<Zoned>>);

impl ManualClock {
    pub fn advance(&self, span: Span) {
        let mut now = self.0.lock().expect("clock lock");
        *now = now.checked_add(span).expect("test clock stays in range");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instant_alone_never_looks_the_zone_up() {
        let clock = Clock {
            instant: Arc::new(|| Timestamp::from_second(1_700_000_000).unwrap()),
            zone: Arc::new(|| panic!("the time zone was looked up")),
        };
        assert_eq!(clock.timestamp().as_second(), 1_700_000_000);
    }

    #[test]
    fn a_manual_clock_moves_its_instant_and_keeps_its_zone() {
        let start: Zoned = "2026-03-29T00:30:00.123456+01:00[Europe/Paris]"
            .parse()
            .unwrap();
        let (clock, handle) = Clock::manual(start.clone());
        // Kept to the millisecond.
        assert_eq!(
            clock.timestamp().as_millisecond(),
            start.timestamp().as_millisecond()
        );
        handle.advance(Span::new().hours(2));
        let now = clock.now();
        // Across the change to summer time, in the same zone.
        assert_eq!(now.time_zone().iana_name(), Some("Europe/Paris"));
        assert_eq!(now.offset().seconds(), 2 * 3600);
        assert_eq!(now.timestamp(), clock.timestamp());
    }
}

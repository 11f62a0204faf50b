//! The service's notion of "now", injectable so expiry can be tested without sleeping.
//!
//! Times are kept to the millisecond: that is what the stores keep, so a value read back equals
//! the value written, and export → import is lossless.

use std::sync::{Arc, Mutex};

use jiff::{Span, Timestamp, Zoned};

/// A source of the current time in the user's time zone.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> Zoned + Send + Sync>);

impl Clock {
    /// The system clock in the system time zone.
    pub fn system() -> Self {
        Clock(Arc::new(Zoned::now))
    }

    /// A clock that a test moves by hand.
    pub fn manual(start: Zoned) -> (Self, ManualClock) {
        let handle = ManualClock(Arc::new(Mutex::new(start)));
        let reader = handle.clone();
        (
            Clock(Arc::new(move || {
                reader.0.lock().expect("clock lock").clone()
            })),
            handle,
        )
    }

    /// Now, truncated to the millisecond.
    /// Now as an instant, to the millisecond (what stores compare against).
    pub fn timestamp(&self) -> Timestamp {
        self.now().timestamp()
    }

    pub fn now(&self) -> Zoned {
        let now = (self.0)();
        let ms = Timestamp::from_millisecond(now.timestamp().as_millisecond())
            .expect("a millisecond of a valid timestamp is valid");
        ms.to_zoned(now.time_zone().clone())
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

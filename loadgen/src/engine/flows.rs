//! A `[flow]` in the event loop: a flow's step answered, its saves read and its pass gone on,
//! ended or failed at the step (the flow itself is [`crate::flow`]'s).

use std::time::Instant;

use super::Worker;
use crate::stats::StepFailure;

impl Worker {
    /// A flow's step was answered, rightly or not (`failed`): its saves are read, and its
    /// pass goes on, ends, or fails here.
    pub(super) fn step_answered(&mut self, index: usize, failed: bool, now: Instant) {
        let (Some(flow), Some(progress)) = (&self.plan.flow, self.flows.get_mut(index)) else {
            return;
        };
        let connection = &mut self.connections[index];
        let result = if failed {
            Err(StepFailure::Answer)
        } else {
            let savers = &self.plan.kinds[connection.kind].saves;
            let body = connection.parser.kept_body();
            let whole = !connection.parser.response().body_cut;
            progress.answered(flow, savers, (body, whole), &mut connection.judging)
        };
        match result {
            Ok(None) => {}
            Ok(Some(started)) => {
                if self.schedule.counts(progress.counted(), now)
                    && let Some(flows) = &mut self.stats.flows
                {
                    flows.done(now.saturating_duration_since(started).as_micros() as u64);
                }
            }
            Err(cause) => self.step_failed(index, cause, now),
        }
    }

    /// A flow's pass failed at its connection's step: counted there, and begun again.
    pub(super) fn step_failed(&mut self, index: usize, cause: StepFailure, now: Instant) {
        let Some(progress) = self.flows.get_mut(index) else {
            return;
        };
        if self.schedule.counts(progress.counted(), now)
            && let Some(flows) = &mut self.stats.flows
        {
            flows.failed_at(progress.step(), cause);
        }
        progress.restart();
    }
}

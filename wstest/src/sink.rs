//! Where the value writers put their bytes: a `Vec<u8>` they append to, or [`Slots`], room made
//! in a `Vec` once for a whole TestStruct and filled by plain stores. One copy of the digit and
//! escape logic (`xsd`, `escape`) serves both. A leaf: it uses no other module.

/// A place to put bytes.
pub(crate) trait Sink {
    /// Puts bytes whose length is known when compiling: a store or two.
    fn put<const N: usize>(&mut self, bytes: [u8; N]);
    /// Puts bytes of any length.
    fn put_slice(&mut self, bytes: &[u8]);
    /// Puts what `write` writes at the start of a slice of at least `max` bytes, which returns
    /// how many it wrote.
    fn put_with(&mut self, max: usize, write: impl FnOnce(&mut [u8]) -> usize);
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        self.extend_from_slice(&bytes);
    }

    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn put_with(&mut self, max: usize, write: impl FnOnce(&mut [u8]) -> usize) {
        let at = self.len();
        self.resize(at + max, 0);
        let written = write(&mut self[at..]);
        self.truncate(at + written);
    }
}

/// Bytes written into room made beforehand: each write is a copy behind one bound check on a
/// slice held in registers.
///
/// Appending to the `Vec` itself costs more: every append checks the capacity, and every store
/// of a byte may alias the `Vec`'s own pointer and length, so they are loaded again and the length
/// stored after each. Writing EchoStruct-100's answer by appends took 296 instructions an item
/// (callgrind, wsperf's encode); see `encode::write_structs` for what this takes.
pub(crate) struct Slots<'b> {
    /// The room not yet written: the `Vec`'s bytes past what is written, zeroed when made (the
    /// workspace forbids the `unsafe` that writing into its spare capacity would take).
    rest: &'b mut [u8],
}

/// Appends to `out`, at `*at`, what `write` puts into [`Slots`] with room for at least `room`
/// bytes, and moves `*at` past it.
///
/// `out` keeps zeroed room past `*at` between calls, made a kilobyte or more at a time (and only
/// within its capacity, so that a large pooled buffer is not zeroed whole): call [`finish`] to
/// cut it to what was written. A write past the room panics: the callers make room for the
/// longest text they can put.
#[inline(always)]
pub(crate) fn fill(
    out: &mut Vec<u8>,
    at: &mut usize,
    room: usize,
    write: impl FnOnce(&mut Slots<'_>),
) {
    if *at + room > out.len() {
        grow(out, *at + room);
    }
    let whole = &mut out[*at..];
    let len = whole.len();
    let mut slots = Slots { rest: whole };
    write(&mut slots);
    *at += len - slots.rest.len();
}

/// Cuts `out` to the `at` that [`fill`] reached.
pub(crate) fn finish(out: &mut Vec<u8>, at: usize) {
    out.truncate(at);
}

#[cold]
#[inline(never)]
fn grow(out: &mut Vec<u8>, end: usize) {
    const CHUNK: usize = 1024;
    let target = end.max((out.len() + CHUNK).min(out.capacity()));
    out.resize(target, 0);
}

impl Slots<'_> {
    /// The next `n` bytes of the room, taken.
    #[inline(always)]
    fn take(&mut self, n: usize) -> &mut [u8] {
        let (taken, rest) = std::mem::take(&mut self.rest).split_at_mut(n);
        self.rest = rest;
        taken
    }
}

impl Sink for Slots<'_> {
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        self.take(N).copy_from_slice(&bytes);
    }

    /// Up to 16 bytes as two copies of 8 that may overlap: a copy of fixed size compiles to a
    /// load and a store, where one of a variable length is a call to `memcpy`.
    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        let dst = self.take(bytes.len());
        if let (Some(head), Some(tail), 8..=16) = (
            bytes.first_chunk::<8>(),
            bytes.last_chunk::<8>(),
            bytes.len(),
        ) {
            let len = bytes.len();
            dst[..8].copy_from_slice(head);
            dst[len - 8..].copy_from_slice(tail);
        } else {
            dst.copy_from_slice(bytes);
        }
    }

    #[inline(always)]
    fn put_with(&mut self, max: usize, write: impl FnOnce(&mut [u8]) -> usize) {
        let written = write(&mut self.rest[..max]);
        self.take(written);
    }
}

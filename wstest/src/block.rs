//! Sixteen bytes at a time, for the binding's scans of text (the decoder's search for a text's
//! end, the encoder's test for bytes to escape): a block's bytes compared with a byte in one
//! step, the comparisons combined, then gathered into a mask of 16 bits (bit k: byte k).
//! SSE2, which every x86-64 has, through `safe_arch` (the workspace forbids `unsafe`, and
//! `std::arch` needs it); a loop over the bytes elsewhere. A leaf: it uses no other module.

use std::ops::BitOr;

/// Sixteen bytes.
#[derive(Clone, Copy)]
pub(crate) struct Block(Inner);

/// The outcome of a comparison in each of a block's sixteen bytes.
#[derive(Clone, Copy)]
pub(crate) struct Lanes(LanesInner);

#[cfg(target_arch = "x86_64")]
mod imp {
    pub(super) use safe_arch::m128i as Inner;
    pub(super) use safe_arch::m128i as LanesInner;
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, move_mask_i8_m128i, set_i64_m128i, set_splat_i8_m128i,
    };

    #[inline(always)]
    pub(super) fn load(bytes: &[u8; 16]) -> Inner {
        load_unaligned_m128i(bytes)
    }
    #[inline(always)]
    pub(super) fn from_words(low: u64, high: u64) -> Inner {
        set_i64_m128i(high as i64, low as i64)
    }
    #[inline(always)]
    pub(super) fn with_bits(block: Inner, bits: u8) -> Inner {
        bitor_m128i(block, set_splat_i8_m128i(bits as i8))
    }
    #[inline(always)]
    pub(super) fn eq(block: Inner, byte: u8) -> LanesInner {
        cmp_eq_mask_i8_m128i(block, set_splat_i8_m128i(byte as i8))
    }
    #[inline(always)]
    pub(super) fn below_or_high(block: Inner, limit: u8) -> LanesInner {
        // As i8, the bytes from 0x80 up are negative, below any limit up to 0x7F.
        cmp_lt_mask_i8_m128i(block, set_splat_i8_m128i(limit as i8))
    }
    #[inline(always)]
    pub(super) fn outside(block: Inner, low: u8, high: u8) -> LanesInner {
        let below = cmp_lt_mask_i8_m128i(block, set_splat_i8_m128i(low as i8));
        let above = cmp_gt_mask_i8_m128i(block, set_splat_i8_m128i(high as i8));
        bitor_m128i(below, above)
    }
    #[inline(always)]
    pub(super) fn or(a: LanesInner, b: LanesInner) -> LanesInner {
        bitor_m128i(a, b)
    }
    #[inline(always)]
    pub(super) fn mask(lanes: LanesInner) -> u32 {
        move_mask_i8_m128i(lanes) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub(super) type Inner = [u8; 16];
    pub(super) type LanesInner = u32;

    fn lanes(block: Inner, test: impl Fn(u8) -> bool) -> LanesInner {
        (0..16).fold(0, |mask, k| mask | u32::from(test(block[k])) << k)
    }
    pub(super) fn load(bytes: &[u8; 16]) -> Inner {
        *bytes
    }
    pub(super) fn from_words(low: u64, high: u64) -> Inner {
        let mut block = [0; 16];
        block[..8].copy_from_slice(&low.to_le_bytes());
        block[8..].copy_from_slice(&high.to_le_bytes());
        block
    }
    pub(super) fn with_bits(block: Inner, bits: u8) -> Inner {
        block.map(|byte| byte | bits)
    }
    pub(super) fn eq(block: Inner, byte: u8) -> LanesInner {
        lanes(block, |each| each == byte)
    }
    pub(super) fn below_or_high(block: Inner, limit: u8) -> LanesInner {
        lanes(block, |each| each < limit || each >= 0x80)
    }
    pub(super) fn outside(block: Inner, low: u8, high: u8) -> LanesInner {
        lanes(block, |each| !(low..=high).contains(&each))
    }
    pub(super) fn or(a: LanesInner, b: LanesInner) -> LanesInner {
        a | b
    }
    pub(super) fn mask(lanes: LanesInner) -> u32 {
        lanes
    }
}

use imp::{Inner, LanesInner};

impl Block {
    /// The sixteen bytes of `bytes`.
    #[inline(always)]
    pub(crate) fn load(bytes: &[u8; 16]) -> Block {
        Block(imp::load(bytes))
    }

    /// The eight bytes of `low` (little-endian) then the eight of `high`.
    #[inline(always)]
    pub(crate) fn from_words(low: u64, high: u64) -> Block {
        Block(imp::from_words(low, high))
    }

    /// Each byte with `bits` set.
    #[inline(always)]
    pub(crate) fn with_bits(self, bits: u8) -> Block {
        Block(imp::with_bits(self.0, bits))
    }

    /// Where the bytes equal `byte`.
    #[inline(always)]
    pub(crate) fn eq(self, byte: u8) -> Lanes {
        Lanes(imp::eq(self.0, byte))
    }

    /// Where the bytes are outside `low..=high` (both below 0x80; the bytes from 0x80 up are
    /// outside): signed comparisons.
    #[inline(always)]
    pub(crate) fn outside(self, low: u8, high: u8) -> Lanes {
        debug_assert!(low <= high && high < 0x80);
        Lanes(imp::outside(self.0, low, high))
    }

    /// Where the bytes are below `limit` (at most 0x7F) or from 0x80 up: a signed comparison.
    #[inline(always)]
    pub(crate) fn below_or_high(self, limit: u8) -> Lanes {
        debug_assert!(limit < 0x80);
        Lanes(imp::below_or_high(self.0, limit))
    }
}

impl BitOr for Lanes {
    type Output = Lanes;

    #[inline(always)]
    fn bitor(self, other: Lanes) -> Lanes {
        Lanes(imp::or(self.0, other.0))
    }
}

impl Lanes {
    /// Bit k set where byte k passed.
    #[inline(always)]
    pub(crate) fn mask(self) -> u32 {
        imp::mask(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value in every lane, against the same tests byte by byte.
    #[test]
    fn masks_are_the_bytes() {
        for lane in 0..16 {
            for byte in 0..=255u8 {
                let mut bytes = [b'a'; 16];
                bytes[lane] = byte;
                let words = (
                    u64::from_le_bytes(bytes[..8].try_into().unwrap()),
                    u64::from_le_bytes(bytes[8..].try_into().unwrap()),
                );
                for block in [Block::load(&bytes), Block::from_words(words.0, words.1)] {
                    let expected = |test: bool| u32::from(test) << lane;
                    let all = if byte == b'a' { 0xFFFF } else { 1 << lane };
                    assert_eq!(block.eq(byte).mask(), all);
                    assert_eq!(block.eq(b'<').mask(), expected(byte == b'<'));
                    assert_eq!(
                        block.below_or_high(0x20).mask(),
                        expected(!(0x20..0x80).contains(&byte))
                    );
                    assert_eq!(
                        block.with_bits(2).eq(b'>').mask(),
                        expected(byte | 2 == b'>')
                    );
                    assert_eq!(
                        block.outside(b'0', b'9').mask(),
                        (0xFFFF & !(1 << lane)) | expected(!byte.is_ascii_digit())
                    );
                    assert_eq!(
                        (block.eq(b'&') | block.eq(b'<')).mask(),
                        expected(byte == b'&' || byte == b'<')
                    );
                }
            }
        }
    }
}

/// IEEE 754 half precision, converted by hand so that it works on every platform (`Float16` is
/// unavailable on macOS for Intel).
struct Float16Bits {
    let bits: UInt16

    init(_ bits: UInt16) { self.bits = bits }

    /// The exact half-precision encoding of `single`, or `nil` when a half cannot hold it.
    ///
    /// NaNs return `nil`; the encoder writes them as the canonical `f9 7e00` itself.
    init?(exactly single: Float) {
        let raw = single.bitPattern
        let sign = UInt16(truncatingIfNeeded: raw >> 16) & 0x8000
        let exponentField = Int((raw >> 23) & 0xff)
        let mantissa = raw & 0x7f_ffff
        switch exponentField {
        case 0xff:
            // Infinity keeps its sign; NaN is not converted here.
            guard mantissa == 0 else { return nil }
            bits = sign | 0x7c00
        case 0:
            // Single-precision subnormals are far below the smallest half subnormal.
            guard mantissa == 0 else { return nil }
            bits = sign
        default:
            let exponent = exponentField - 127
            if (-14...15).contains(exponent) {
                guard mantissa & 0x1fff == 0 else { return nil }
                bits = sign | UInt16(exponent + 15) << 10 | UInt16(mantissa >> 13)
            } else if (-24 ... -15).contains(exponent) {
                // A half subnormal is m × 2^-24; the single is (mantissa | 2^23) × 2^(exponent - 23).
                let significand = mantissa | 0x80_0000
                let shift = UInt32(-(exponent + 1))
                guard significand & ((1 << shift) - 1) == 0 else { return nil }
                bits = sign | UInt16(significand >> shift)
            } else {
                return nil
            }
        }
    }

    var value: Float {
        let sign: Float = bits & 0x8000 != 0 ? -1 : 1
        let exponent = Int((bits >> 10) & 0x1f)
        let mantissa = Float(bits & 0x3ff)
        switch exponent {
        case 0: return sign * mantissa * Float(sign: .plus, exponent: -24, significand: 1)
        case 31: return mantissa == 0 ? sign * .infinity : .nan
        default: return sign * (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}

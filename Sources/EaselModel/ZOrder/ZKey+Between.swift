extension ZKey {
    /// A key strictly between `lower` and `upper` (nil: open end).
    ///
    /// Appending below the lowest or above the highest key steps the integer
    /// part, so keys grow logarithmically at the ends; inserting into one
    /// gap again and again grows them by about one byte per six inserts.
    /// `jitter` seeds a short random suffix so two replicas inserting at the
    /// same place at the same time rarely pick the same key; pass something
    /// that differs per replica and per op, such as a hash of the new OpID.
    /// The result is deterministic in its inputs.
    ///
    /// Throws when `lower` is not below `upper`: equal neighbours are
    /// separated by re-keying one of them (`Document.zPlacement`).
    public static func between(_ lower: ZKey?, _ upper: ZKey?, jitter: UInt64) throws(ModelError) -> ZKey {
        if let lower, let upper, !(lower < upper) {
            throw .invalidZKey("\"\(lower)\" is not below \"\(upper)\"")
        }
        let lowerBytes = lower.map { Array($0.string.utf8) }
        let upperBytes = upper.map { Array($0.string.utf8) }
        let plain = plainKey(between: lowerBytes, upperBytes)
        var random = SplitMix64(seed: jitter)
        var suffix: [UInt8]
        if let upperBytes, upperBytes.starts(with: plain) {
            // Any suffix would do above `lower`; below `upper` it must stay
            // under the rest of `upper`.
            suffix = fraction(below: upperBytes[plain.count...], random: &random)
        } else {
            suffix = [
                ZKeyDigits.digit(Int(random.next() % UInt64(ZKeyDigits.base))),
                ZKeyDigits.digit(1 + Int(random.next() % UInt64(ZKeyDigits.base - 1))),
            ]
        }
        suffix.insert(contentsOf: plain, at: 0)
        return ZKey(generated: suffix)
    }

    private static func plainKey(between lower: [UInt8]?, _ upper: [UInt8]?) -> [UInt8] {
        switch (lower, upper) {
        case (nil, nil):
            return Array(ZKey.first.string.utf8)
        case (nil, let upper?):
            let (integer, fraction) = split(upper)
            if Array(integer) == ZKeyDigits.smallestInteger {
                return Array(integer) + midpoint(ArraySlice(), fraction)
            }
            // Always step down, even where a fraction would fit: that keeps
            // repeated inserts at the bottom short.
            guard let below = ZKeyDigits.decrement(integer) else {
                return Array(integer) + midpoint(ArraySlice(), fraction)
            }
            return below == ZKeyDigits.smallestInteger ? below + midpoint(ArraySlice(), nil) : below
        case (let lower?, nil):
            let (integer, fraction) = split(lower)
            guard let above = ZKeyDigits.increment(integer) else { return Array(integer) + midpoint(fraction, nil) }
            return above
        case (let lower?, let upper?):
            let (lowerInteger, lowerFraction) = split(lower)
            let (upperInteger, upperFraction) = split(upper)
            if lowerInteger == upperInteger {
                return Array(lowerInteger) + midpoint(lowerFraction, upperFraction)
            }
            if let above = ZKeyDigits.increment(lowerInteger), above.lexicographicallyPrecedes(upper) {
                return above
            }
            return Array(lowerInteger) + midpoint(lowerFraction, nil)
        }
    }

    private static func split(_ key: [UInt8]) -> (integer: ArraySlice<UInt8>, fraction: ArraySlice<UInt8>) {
        let length = min(key.count, ZKeyDigits.integerLength(head: key[0]) ?? key.count)
        return (key[..<length], key[length...])
    }

    /// Digits strictly between the fractions 0.lower and 0.upper (nil: 1),
    /// ending in a non-zero digit. Both are digit bytes with no trailing 0.
    private static func midpoint(_ lower: ArraySlice<UInt8>, _ upper: ArraySlice<UInt8>?) -> [UInt8] {
        var result: [UInt8] = []
        var lower = lower
        var upper = upper
        while true {
            if let upperDigits = upper {
                // Copy the common prefix (lower padded with zeros).
                var shared = 0
                while shared < upperDigits.count,
                    (shared < lower.count ? lower[lower.startIndex + shared] : ZKeyDigits.zero)
                        == upperDigits[upperDigits.startIndex + shared]
                {
                    shared += 1
                }
                if shared > 0 {
                    result += upperDigits.prefix(shared)
                    lower = lower.dropFirst(shared)
                    upper = upperDigits.dropFirst(shared)
                }
            }
            let lowerDigit = lower.first.flatMap(ZKeyDigits.value(of:)) ?? 0
            let upperDigit = upper?.first.flatMap(ZKeyDigits.value(of:)) ?? ZKeyDigits.base
            if upperDigit - lowerDigit > 1 {
                result.append(ZKeyDigits.digit((lowerDigit + upperDigit + 1) / 2))
                return result
            }
            if let upperDigits = upper, upperDigits.count > 1 {
                result.append(upperDigits[upperDigits.startIndex])
                return result
            }
            // Adjacent digits: keep lower's and look for room after it.
            result.append(ZKeyDigits.digit(lowerDigit))
            lower = lower.dropFirst()
            upper = nil
        }
    }

    /// Random digits below the fraction `bound` (which does not end in 0).
    private static func fraction(below bound: ArraySlice<UInt8>, random: inout SplitMix64) -> [UInt8] {
        var result: [UInt8] = []
        for byte in bound {
            let limit = ZKeyDigits.value(of: byte) ?? 0
            if limit == 0 {
                result.append(ZKeyDigits.zero)
                continue
            }
            result.append(ZKeyDigits.digit(Int(random.next() % UInt64(limit))))
            result.append(ZKeyDigits.digit(1 + Int(random.next() % UInt64(ZKeyDigits.base - 1))))
            return result
        }
        return result
    }
}

import EaselModel

/// Op batches outside a message (Protocol/README.md, 4.3): how storage keeps
/// an op (a batch of one) and a snapshot's state (a batch of all its ops),
/// so the log holds exactly what the wire carries.
public enum OpBatchCoding {
    public static func encode(_ ops: [Op]) -> [UInt8] {
        var writer = ByteWriter(capacity: 16 + ops.count * 8)
        writer.opBatch(ops)
        return writer.bytes
    }

    /// One op as a batch of one, in place of what `writer` held: a writer
    /// reused op after op allocates nothing for its bytes.
    public static func encode(_ op: Op, into writer: inout ByteWriter) {
        writer.removeAll()
        writer.singleOpBatch(op)
    }

    /// Decodes a whole batch of at most `limit` ops; nothing may trail it.
    public static func decode(_ bytes: [UInt8], limit: Int = .max / 4) throws(DecodeError) -> [Op] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> [Op] in
                var reader = BinaryReader(buffer)
                let ops = try reader.opBatch(limit: limit)
                try reader.expectEnd()
                return ops
            }
        }
        return try result.get()
    }
}

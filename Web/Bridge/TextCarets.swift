import EaselModel
import EaselSync

// The caret of the text typed into in place, kept by the model as places
// after characters, so remote edits never move it wrongly; the page's
// textarea reads and writes it as positions.

extension WebSession {
    /// The one text in the selection: the one typed into.
    var oneSelectedText: EntityID? {
        let texts = client.editor.selectedTexts
        return texts.count == 1 ? texts.first : nil
    }
}

/// The caret and text selection moved in the one selected text: from
/// `anchor` to `head`, positions counted in Unicode scalars (equal for a
/// bare caret); a negative `anchor` takes the caret out of the text. 0, or
/// -1 when no one text is selected.
@_cdecl("easel_session_place_caret")
public func easelSessionPlaceCaret(_ handle: Int32, _ anchor: Int32, _ head: Int32, _ now: Double) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    guard anchor >= 0 else {
        session.client.removeCaret(at: timestamp(now))
        return Status.done.rawValue
    }
    guard let text = session.oneSelectedText else { return Status.refused.rawValue }
    return outcome { () throws(ModelError) in
        try session.client.placeCaret(in: text, anchor: Int(anchor), head: Int(max(head, 0)), at: timestamp(now))
    }
}

/// The caret's text as it reads now and where the caret is in it, in the
/// result buffer: anchor and head (u32 each, Unicode scalars, little-endian),
/// then the text (UTF-8, to the end). 1, or 0 when there is no caret (its
/// text was deleted, or typing ended).
@_cdecl("easel_session_caret")
public func easelSessionCaret(_ handle: Int32) -> Int32 {
    guard let editor = sessions[handle]?.client.editor, let caret = editor.state.textCaret,
        let positions = editor.caretPositions, let string = editor.document.textString(of: caret.text)
    else { return 0 }
    var bytes: [UInt8] = []
    bytes.appendLittleEndian(UInt32(positions.anchor))
    bytes.appendLittleEndian(UInt32(positions.head))
    bytes += Array(string.utf8)
    setResult(bytes)
    return 1
}

/// A peer's caret as the page shows it: a u32 count (0 or 1), then the
/// text's ID (u32 length and UTF-8) and the caret's anchor and head in that
/// text as this page has it (u32 each, Unicode scalars).
func caretBytes(of caret: TextCaret?, in document: Document) -> [UInt8] {
    var bytes: [UInt8] = []
    guard let caret, document.isVisible(caret.text), document.kind(of: caret.text) == .text else {
        bytes.appendLittleEndian(UInt32(0))
        return bytes
    }
    let positions = caret.positions(in: document.textSequenceForEditing(of: caret.text))
    bytes.appendLittleEndian(UInt32(1))
    bytes.appendLengthPrefixed(caret.text.description)
    bytes.appendLittleEndian(UInt32(positions.anchor))
    bytes.appendLittleEndian(UInt32(positions.head))
    return bytes
}

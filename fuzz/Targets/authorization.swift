// Fuzz target (libFuzzer): the `Authorization` header parser on arbitrary bytes (read before any
// signature is checked, from anyone who can reach the port). Checks what a parsed header
// promises: a valid key id, a 32-byte signature, and the scheme the value starts with.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthorization(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let value = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    guard let header = RequestSignature.parse(value) else { return 0 }
    precondition(IngestionKey.isValidID(header.keyID), "a parsed key id that is not valid")
    precondition(header.signature.count == 32, "a parsed signature that is not 32 bytes")
    precondition(value.hasPrefix(header.scheme.rawValue + " "), "a scheme the value does not start with")
    return 0
}

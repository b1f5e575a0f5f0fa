// Embedded Swift for WebAssembly has no Glibc to import: the same C
// functions come from the module's libm (Docs/web.md). The native build
// imports them from the platform as before.
#if hasFeature(Embedded)
    @_extern(c, "sinf") func sinf(_ x: Float) -> Float
    @_extern(c, "cosf") func cosf(_ x: Float) -> Float
#endif

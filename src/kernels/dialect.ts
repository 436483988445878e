/**
 * The dialect a kernel language gives the templates written once (src/kernels/templates/).
 * A template is the text of a program in the common ground of CUDA C, GLSL and MSL: C
 * statements, functional casts (`int(x)`, never `(int)x`), no pointers and no keywords of
 * any of them as names (`vin`, `vout`, not `in`, `out`). What differs between the languages
 * is named by macros that each preamble defines (cuda/, glsl/ and msl/preamble.ts, "the
 * template dialect"), and by the Dialect object below:
 *
 *   pt_i64, pt_u64           64-bit integer types
 *   PT_PTR                   the type of a buffer as pt_view.b holds it
 *   PT_A(k)                  slot k of the argument block, as a pt_i64
 *   PT_VIEW(k)               the VIEW at slot k (a pt_view: b, dt, off, st[8])
 *   PT_SHAPE(k, rank, sh)    reads a shape of `rank` dims from slot k into sh; its element count
 *   PT_<KIND>_<FIELD>        a field's slot (PT_GATHER_AXIS, PT_INDEX_VALS(k)): slots.ts's slotDefines, in every preamble
 *   PT_FAIL(code, a, b, c)   reports a kernel error with three details (the first report wins)
 *   PT_UNROLL                before a loop of constant trip count the compiler should unroll
 *   PT_UNROLL_REGS           before a loop over a register array (attention's q and o), which stays in registers only unrolled
 *   PT_FN                    a helper function's qualifiers
 *   PT_CTX, PT_PASS          a helper's leading parameters that reach the block (with their comma), and
 *                            the arguments a call passes for them: PT_A, PT_VIEW and PT_FAIL work in its body
 *   PT_CREF(T), PT_OUT(T)    a parameter read through a reference (const T &, in T), one written (T &, out T)
 *   PT_ARR(T, name)          a read-only array parameter of PT_MAX_RANK elements (a shape)
 *   PT_TID, PT_GROUP_ID      the invocation's index in its group (an int), the group's index
 *   PT_GROUPS                the launch's number of groups (ROW launches stride rows by it)
 *   PT_SYNC()                a barrier of the group that also orders its shared memory
 *   PT_SYNC_32()             a barrier of 32 consecutive invocations (a CUDA warp) that orders their shared
 *                            memory; the whole group's where a language has no lock-step groups of 32
 *   PT_SYNC_GLOBAL()         PT_SYNC() that also orders the group's buffer writes (read back through
 *                            pt_raw_i64_coherent, written through pt_put_i64_coherent)
 *   PT_BUF(k)                the buffer whose index is slot k's value (for pt_st_i64 and the other helpers)
 *   PT_SHARED_GLOBAL(T, n),  a group-shared array n of PT_BLOCK elements: each template writes both,
 *   PT_SHARED_LOCAL(T, n)    at file scope and at the top of the kernel, and the language keeps one
 *   PT_SHARED_GLOBAL_N(T, n, k), PT_SHARED_LOCAL_N(T, n, k)   the same with k elements
 *   PT_SH(T, n), PT_SH_PASS(n)  a helper's parameter for shared array n and a call's argument for it
 *                            (nothing where the array is global)
 *   PT_FIRST, PT_STEP        an ELEMENT launch's first element and stride
 *   pt_facc                  the type floats accumulate in (double; float-float pt_df on Metal), with
 *                            pt_facc_of(int), pt_facc_add, pt_facc_mul, pt_ld_facc, pt_st_facc
 *   PT_INOUT(T)              a parameter read and written (T &, inout T)
 *   PT_HI(x)                 the value a max, min or arg compares (a float-float's float part on Metal)
 *   PT_FACC_INF, _NINF, _NAN, _TWO_PI, PT_FACC_SLOT(k)   pt_facc constants, and slot k as pt_facc (exact for an integer)
 *   pt_facc_sub, _div, _sqrt, _isnan, _nonzero, _of_i64, _log, _cos, _lt   the rest of pt_facc's arithmetic
 *   pt_wrap32(v)             an int64 as int, its low 32 bits
 *   pt_u32                   the 32-bit unsigned type (16- and 8-bit values travel in it)
 *   pt_raw_<t>(b, i), pt_put_<t>(b, i, v)   element i of buffer b as t's bits (f32 f64 i32 i64 u16 u8), read and written
 *   pt_raw_i64_coherent(b, i), pt_put_i64_coherent(b, i, v)   the same for an int64 that other invocations of
 *                            the group read and write between PT_SYNC_GLOBAL()s (GLSL's `coherent`)
 *   pt_as_f32, pt_f32_bits   float <-> its bits; pt_msb(x) the highest set bit's index (GLSL)
 *   pt_exp_f32(x)            e^x of a float in float precision
 *   pt_log_f32(x)            the natural log of a float, to about an ulp (GLSL: math.ts's, for templates in USES_MATH)
 *   pt_fma_f32(a, b, c)      a * b + c of floats rounded once (attention's dot products and sums; matmul's fma)
 *   pt_f32_nz(x)             whether a float is nonzero as the CPU tests it (NaN is; Metal tests the bits)
 *   pt_f32_isnan(x)          whether a float is NaN (Metal tests the bits)
 *   pt_mulhi32(a, b)         the high word of a 32 x 32-bit product
 *   pt_ld_i64, pt_copy_elem, pt_offset_of, pt_norm_index   the preambles' helpers, one name each
 */

/** The strings a template cannot spell as a macro. */
export interface Dialect {
  /** The program's entry point, its opening brace, and what its body starts with. */
  readonly kernel: string;
  /** A declaration of the entry point, before `kernel`, that asks for `groups` resident groups a multiprocessor
   * (CUDA's launch bounds, which cap the registers a thread); "" where the language cannot ask. */
  bounds(groups: number): string;
  /** The bytes of group-shared memory a program may declare statically (CUDA's 48 KiB; Metal's 32 KiB, and GLSL's
   * as the Vulkan devices served give, at least that): attention takes longer key tiles where it may. */
  readonly sharedBytes: number;
}

; ir_too_wide.ll - the dsm-atomic pass refuses, with an error naming the
; function, an atomic wider than 16 bytes that may be sharable (the runtime
; has no entry for it; clang never emits one, it calls libatomic instead).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; CHECK: error: {{.*}}in function too_wide{{.*}}: dsm-atomic: atomic access wider than 16 bytes to possibly sharable memory
define i256 @too_wide(i256* %p) {
  %v = load atomic i256, i256* %p seq_cst, align 32
  ret i256 %v
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: the kernel's compiler annotations the module uses.
 * __packed is defined on the compiler's command line (run), where
 * checkpatch does not ask for it to be spelled __packed.
 */
#ifndef _MRC_FUZZ_COMPILER_H
#define _MRC_FUZZ_COMPILER_H

#define __force

#endif

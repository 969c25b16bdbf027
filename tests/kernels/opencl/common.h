/* Shared helpers of the OpenCL C corpus: work-item indexing without a device library.
 *
 * No device library is installed (clang runs with -nogpulib), so get_global_id() and
 * friends have no definition; these helpers read the hardware ids through clang's
 * AMDGPU builtins instead. The work-group size comes from the implicit kernel argument
 * block (clang emits the load from llvm.amdgcn.implicitarg.ptr itself). */
#ifndef TDGEN_OPENCL_COMMON_H
#define TDGEN_OPENCL_COMMON_H

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* Work-item id within the work-group, x and y. */
static inline uint tid_x(void) { return __builtin_amdgcn_workitem_id_x(); }
static inline uint tid_y(void) { return __builtin_amdgcn_workitem_id_y(); }

/* Work-group id, x and y. */
static inline uint group_x(void) { return __builtin_amdgcn_workgroup_id_x(); }
static inline uint group_y(void) { return __builtin_amdgcn_workgroup_id_y(); }

/* Work-group size, x and y. */
static inline uint group_size_x(void) { return __builtin_amdgcn_workgroup_size_x(); }
static inline uint group_size_y(void) { return __builtin_amdgcn_workgroup_size_y(); }

/* Global id in x as 32 and as 64 bits. */
static inline uint global_x(void) { return group_x() * group_size_x() + tid_x(); }
static inline ulong global_x64(void) { return (ulong)group_x() * group_size_x() + tid_x(); }
static inline uint global_y(void) { return group_y() * group_size_y() + tid_y(); }

/* Lane id within a 64-wide wavefront. */
static inline uint lane_id(void) { return tid_x() & 63u; }

#endif

/* rt_secondary.h — d2 (stages/secondary.h) and secondary products on StarPU: for every bidegree
 * whose composites some homotopy step reads (independent, largest degrees first) its plan (on
 * the submitting thread), its mod-4 products as cl_pair_mul chunks (CPU or CUDA workers, by
 * rt_mul_mod4_chunking) and its cl_composite finish; a wait for all; then the homotopy's lift
 * DAG (runtime/rt_lift.h). StarPU must be started (rt_init). */
#ifndef EXTFLOW_RT_SECONDARY_H
#define EXTFLOW_RT_SECONDARY_H
#include "stages/secondary.h"
#include "stages/secondary_product.h"

/* 0, or -1 (sec->error or sec->set.error says why). */
int rt_secondary(secondary *sec);
/* A secondary product (stages/secondary_product.h) after rt_secondary: the class's lift, its
 * composites as above, then H's lift DAG. 0, or -1 (p->error, or the lift sets'
 * error, says why). */
int rt_secondary_product(sec_product *p);

#endif

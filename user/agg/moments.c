// SPDX-License-Identifier: GPL-2.0
/*
 * Means and co-moments of the clusters' vectors (estimate.h), kept while
 * records are summed (aggregate.c) and read by the estimates (estimate.c).
 */
#include "agg/estimate.h"

/* Welford's update, for vectors: the co-moment of (x, y) grows by
 * (x - old mean of x) * (y - new mean of y).
 */
static inline __attribute__((always_inline))
void mom_add(struct td_moments *m, const int dims, const double *z)
{
	double d[TD_EST_DIM], e[TD_EST_DIM], inv;

	m->n++;
	inv = 1.0 / (double)m->n;
#pragma GCC unroll 9
	for (int i = 0; i < dims; i++) {
		d[i] = z[i] - m->mean[i];
		m->mean[i] += d[i] * inv;
		e[i] = z[i] - m->mean[i];
	}
#pragma GCC unroll 9
	for (int i = 0, k = 0; i < dims; i++) {
		double di = d[i];
		double *row = &m->m2[k];

#pragma GCC unroll 9
		for (int j = i; j < dims; j++)
			row[j - i] += di * e[j];
		k += dims - i;
	}
}

/* Called for every slice without rotation: dims a constant in each
 * case, so that the loops unroll.
 */
void td_mom_add(struct td_moments *m, int dims, const double *z)
{
	_Static_assert(TD_EST_DIM == 9, "one case per dimension");
	switch (dims) {
	case 2:
		mom_add(m, 2, z);
		break;
	case 3:
		mom_add(m, 3, z);
		break;
	case 4:
		mom_add(m, 4, z);
		break;
	case 5:
		mom_add(m, 5, z);
		break;
	case 6:
		mom_add(m, 6, z);
		break;
	case 7:
		mom_add(m, 7, z);
		break;
	case 8:
		mom_add(m, 8, z);
		break;
	case 9:
		mom_add(m, 9, z);
		break;
	default:
		mom_add(m, dims, z);
		break;
	}
}

/* Chan, Golub and LeVeque's pairwise combination. */
void td_mom_merge(struct td_moments *dst, const struct td_moments *src,
		  int dims)
{
	double d[TD_EST_DIM], na, nb, n;

	if (!src->n)
		return;
	if (!dst->n) {
		*dst = *src;
		return;
	}
	na = (double)dst->n;
	nb = (double)src->n;
	n = na + nb;
	for (int i = 0; i < dims; i++)
		d[i] = src->mean[i] - dst->mean[i];
	for (int i = 0, k = 0; i < dims; i++)
		for (int j = i; j < dims; j++, k++)
			dst->m2[k] += src->m2[k] + d[i] * d[j] * na * nb / n;
	for (int i = 0; i < dims; i++)
		dst->mean[i] += d[i] * nb / n;
	dst->n += src->n;
}

double td_mom_cov(const struct td_moments *m, int dims, int i, int j)
{
	if (m->n < 2)
		return 0;
	if (i > j) {
		int t = i;

		i = j;
		j = t;
	}
	return m->m2[td_mom_idx(i, j, dims)] / (double)(m->n - 1);
}

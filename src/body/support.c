/* How far a centre of pressure lies inside the support polygon: the convex
 * hull of the ground contact points in use, seen from above (x, y).
 *
 * Point contacts that all push put the centre of pressure inside their
 * hull (it is their mean weighted by the normal forces), so a negative
 * margin says some point pulls: the foot would tip over that edge.  The
 * margin is the signed distance to the hull's nearest edge, positive
 * inside.  Points on one line (a toe line, two feet's heels) span no area:
 * the margin is then the distance inside the segment along it, as for a
 * planar walker.  The hull is Andrew's monotone chain; n is at most
 * BODY_MAX_CONTACTS, so no library is worth its dependency here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"

static int by_x_then_y(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

static double cross(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* The hull of pt[0..n) counter-clockwise into h, its size (2 for points on
 * one line: the segment's ends). */
static size_t hull(double (*pt)[2], size_t n, double (*h)[2], double tol)
{
    qsort(pt, n, sizeof *pt, by_x_then_y);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k >= 2 && cross(h[k - 2], h[k - 1], pt[i]) <= tol) k--;
        memcpy(h[k++], pt[i], sizeof *h);
    }
    for (size_t i = n - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross(h[k - 2], h[k - 1], pt[i]) <= tol) k--;
        memcpy(h[k++], pt[i], sizeof *h);
    }
    return k - 1; /* the first point closes the chain */
}

double body_support_margin(const double (*points)[2], size_t n, const double cop[2])
{
    if (n < 2 || n > BODY_MAX_CONTACTS) return NAN;
    double pt[BODY_MAX_CONTACTS][2], h[2 * BODY_MAX_CONTACTS + 1][2];
    memcpy(pt, points, n * sizeof *pt);
    double span = 0;
    for (size_t i = 1; i < n; i++) span = fmax(span, hypot(pt[i][0] - pt[0][0], pt[i][1] - pt[0][1]));
    if (!(span > 0)) return NAN;
    /* collinear to round-off of the span's area */
    const size_t nh = hull(pt, n, h, 1e-12 * span * span);
    if (nh < 3) {
        /* a segment from h[0] to its far end: the sorted extremes */
        const double *a = pt[0], *b = pt[n - 1];
        const double len = hypot(b[0] - a[0], b[1] - a[1]);
        const double s = ((cop[0] - a[0]) * (b[0] - a[0]) + (cop[1] - a[1]) * (b[1] - a[1])) / len;
        return fmin(s, len - s);
    }
    double margin = INFINITY;
    for (size_t i = 0; i < nh; i++) {
        const double *a = h[i], *b = h[(i + 1) % nh];
        margin = fmin(margin, cross(a, b, cop) / hypot(b[0] - a[0], b[1] - a[1]));
    }
    return margin;
}

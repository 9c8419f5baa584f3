/*
 * passes/fp8/residual.c - TensorRT's residual rule for the pass
 * fp8 (docs/fp8.md, "Placement"): TensorRT fuses a quantized Conv with
 * the Add after it (Conv + BatchNormalization + Add + activation in one
 * kernel) only when the Add's other input, the shortcut, is quantized
 * too; without Q/DQ there the Add runs apart, in float, and the Conv's
 * output is written out in float for it.
 *
 * Which input is the shortcut when both come from Convs (a ResNet
 * block with a downsampling Conv on its identity path): the one with
 * the shorter path back to the tensor where the two branches fork, as
 * ModelOpt's ONNX quantizer chooses; the longer path is the block's
 * main branch, whose last Conv is the one fused.
 */
#include <stdio.h>

#include "calib.h"

#define RESIDUAL_HOPS 64

/* The Conv whose output v is (through one BatchNormalization), when v
 * has no other reader and conv_ok accepts the Conv; else NULL. */
static qir_node *conv_behind(qir_value *v, qir_node *add,
			     int (*conv_ok)(const qir_node *, void *), void *arg)
{
	qir_node *n = v ? v->producer : NULL;

	if (!n || fp8_sole_user(v) != add)
		return NULL;
	if (qir_node_is(n, "BatchNormalization") && n->ninputs && n->inputs[0]) {
		qir_node *bn = n;

		v = bn->inputs[0];
		n = v->producer;
		if (!n || fp8_sole_user(v) != bn)
			return NULL;
	}
	if (!n || !(qir_node_is(n, "Conv") || qir_node_is(n, "ConvTranspose")))
		return NULL;
	return conv_ok(n, arg) ? n : NULL;
}

/* The values from v back along each producer's first input. */
static size_t chain(qir_value *v, qir_value **out)
{
	size_t k = 0;

	while (v && k < RESIDUAL_HOPS) {
		out[k++] = v;
		v = v->producer && v->producer->ninputs ?
		    v->producer->inputs[0] : NULL;
	}
	return k;
}

/* Of two inputs both from Convs: the one whose path to the fork is the
 * shorter; input 1 when no fork is found within RESIDUAL_HOPS or the
 * paths are as long. */
static int shorter(qir_node *add)
{
	qir_value *a[RESIDUAL_HOPS], *b[RESIDUAL_HOPS];
	size_t na = chain(add->inputs[0], a), nb = chain(add->inputs[1], b);
	size_t i, j;

	for (j = 0; j < nb; j++)
		for (i = 0; i < na; i++)
			if (a[i] == b[j])
				return i < j ? 0 : 1;
	return 1;
}

int fp8_residual_slot(qir_node *n, int (*conv_ok)(const qir_node *, void *),
			 void *arg)
{
	qir_node *c0, *c1;
	size_t k;

	if (!qir_node_is(n, "Add") || n->ninputs != 2)
		return -1;
	for (k = 0; k < 2; k++)
		if (!n->inputs[k] || qir_value_const(n->inputs[k]))
			return -1;
	c0 = conv_behind(n->inputs[0], n, conv_ok, arg);
	c1 = conv_behind(n->inputs[1], n, conv_ok, arg);
	if (!c0 && !c1)
		return -1;
	if (c0 && c1)
		return shorter(n);
	return c0 ? 1 : 0;
}

/* Placed: both inputs of the Conv read a DequantizeLinear. */
static int conv_placed(const qir_node *c, void *arg)
{
	size_t k;

	(void)arg;
	for (k = 0; k < 2; k++)
		if (k >= c->ninputs || !c->inputs[k] || !c->inputs[k]->producer ||
		    !fp8_is_dq(c->inputs[k]->producer))
			return 0;
	return 1;
}

int fp8_residual_adds(struct fp8_cfg *cfg, const char *pass,
			 qir_node **nodes, size_t count, fp8_place_fn place,
			 void *arg, int *changed)
{
	size_t i;
	int slot, rc;
	char counter[64];

	snprintf(counter, sizeof(counter), "%s: residual Add shortcuts "
		 "quantized", pass);

	for (i = 0; i < count; i++) {
		qir_value *v;

		slot = fp8_residual_slot(nodes[i], conv_placed, NULL);
		if (slot < 0)
			continue;
		v = nodes[i]->inputs[slot];
		if (v->producer && fp8_is_dq(v->producer))
			continue;	/* quantized already */
		rc = place(arg, nodes[i], (size_t)slot);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*changed = 1;
			qopt_stat_add(cfg->ctx, counter, 1);
			qopt_debug(cfg->ctx, "%s: Q/DQ on its shortcut '%s' "
				   "(residual rule)", QIR_NODE_LABEL(nodes[i]),
				   v->name);
		}
	}
	return 0;
}

/*
 * ir/model/function.c - the names of a model's local functions
 * (ModelProto.functions). The IR keeps no bodies (the writer copies them
 * back from the parsed file), but which functions a model carries is a
 * fact about the model that the transforms need (an opset upgrade cannot
 * reach inside them), so it is asked of the IR, not of the ONNX reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int ir_model_add_function(qir_model *m, const char *domain,
			  const char *name)
{
	struct ir_model_priv *p = QIR_MPRIV(m);
	size_t len;
	char *s, **grown;

	if (!name)
		name = "";
	len = strlen(name) + (domain && domain[0] ? strlen(domain) + 1 : 0);
	s = malloc(len + 1);
	if (!s)
		return -1;
	if (domain && domain[0])
		snprintf(s, len + 1, "%s.%s", domain, name);
	else
		memcpy(s, name, len + 1);
	grown = realloc(p->functions, (p->nfunctions + 1) * sizeof(*grown));
	if (!grown) {
		free(s);
		return -1;
	}
	p->functions = grown;
	p->functions[p->nfunctions++] = s;
	return 0;
}

size_t qir_model_function_count(const qir_model *m)
{
	return m && m->priv ? QIR_MPRIV(m)->nfunctions : 0;
}

char *qir_model_function_name(const qir_model *m, size_t i, char *buf,
			      size_t size)
{
	if (!buf || !size || i >= qir_model_function_count(m))
		return NULL;
	snprintf(buf, size, "%s", QIR_MPRIV(m)->functions[i]);
	return buf;
}

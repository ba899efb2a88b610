/* Which loader reads a .yaml file: the body-walker format has a top-level
 * bodies: key, the linkage format (src/linkage/load.c) does not. */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "body_def.h"
#include "open.h"

bool body_file_is_body(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        return false;
    }
    yaml_parser_set_input_file(&parser, fp);
    int depth = 0;
    bool want_key = false, found = false;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break;
        const yaml_event_type_t t = ev.type;
        bool stop = t == YAML_STREAM_END_EVENT || t == YAML_DOCUMENT_END_EVENT;
        if (depth == 1 && want_key && t == YAML_SCALAR_EVENT &&
            strcmp((const char *)ev.data.scalar.value, "bodies") == 0) {
            found = stop = true;
        }
        /* at the top mapping's level, keys and values alternate */
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
            if (depth == 1) want_key = !want_key;
            if (depth == 0 && t == YAML_MAPPING_START_EVENT) want_key = true;
            else if (depth == 0) stop = true;
            depth++;
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            depth--;
            if (depth == 0) stop = true;
        } else if ((t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT) && depth == 1) {
            want_key = !want_key;
        }
        yaml_event_delete(&ev);
        if (stop) break;
    }
    yaml_parser_delete(&parser);
    fclose(fp);
    return found;
}

sm_status body_open(const char *path, const sm_model **out, char *why, size_t why_len)
{
    *out = NULL;
    body_file *f = NULL;
    sm_status st = body_file_load(path, &f, why, why_len);
    if (st != SM_OK) return st;
    /* body_model_create owns f from here, on failure too */
    return body_model_create(f, out, why, why_len);
}

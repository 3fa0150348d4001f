// CTOML: a small C API over toml++ (Debian's libtomlplusplus-dev), so Swift can read TOML without C++
// interoperability. One call parses a whole document into a flat array of nodes in pre-order (a node's
// subtree follows it), each carrying its source line and column; Swift walks that array and builds its own
// tree. Strings are UTF-8 with an explicit length and are owned by the document until ctoml_free.
#ifndef CTOML_H
#define CTOML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Deepest a document may nest: each segment of a header or dotted key is a level, and so is each array
/// or inline table a value opens. A deeper document is refused before toml++ builds it (a tree tens of
/// thousands of levels deep overflows the stack of any code that walks or frees it recursively).
#define CTOML_MAXIMUM_DEPTH 64

/// The TOML type of a node.
typedef enum ctoml_kind {
    CTOML_TABLE = 1,
    CTOML_ARRAY = 2,
    CTOML_STRING = 3,
    CTOML_INTEGER = 4,
    CTOML_FLOAT = 5,
    CTOML_BOOLEAN = 6,
    CTOML_DATE = 7,
    CTOML_TIME = 8,
    CTOML_DATE_TIME = 9,
} ctoml_kind;

/// One value of the document. Node 0 is the root table. The children of a table or array follow their
/// parent directly, each child followed by its own subtree; `subtree_size` (this node plus all its
/// descendants) lets a reader skip a child it does not descend into.
typedef struct ctoml_node {
    ctoml_kind kind;
    /// Members of a table, elements of an array; 0 otherwise.
    uint32_t child_count;
    /// Number of nodes in this node's subtree, itself included (so at least 1).
    uint32_t subtree_size;
    /// The key naming this node in its parent table (NULL for the root and for array elements).
    const char *key;
    size_t key_length;
    /// Where that key is written (1-based; 0 when there is no key or toml++ did not record it).
    uint32_t key_line;
    uint32_t key_column;
    /// Where the value starts (1-based; 0 when toml++ did not record it).
    uint32_t line;
    uint32_t column;
    /// CTOML_INTEGER.
    int64_t integer;
    /// CTOML_FLOAT.
    double floating;
    /// CTOML_BOOLEAN: 0 or 1.
    int boolean;
    /// CTOML_STRING: the string; CTOML_DATE / CTOML_TIME / CTOML_DATE_TIME: its TOML text form.
    const char *string;
    size_t string_length;
} ctoml_node;

/// A parsed document, or the parse error.
typedef struct ctoml_document ctoml_document;

/// Parses `length` bytes of TOML text. `source_name` (may be NULL) names the text in toml++'s own
/// messages. Returns NULL only when memory runs out; otherwise check ctoml_succeeded. A document nesting
/// deeper than CTOML_MAXIMUM_DEPTH does not parse (see ctoml_error_is_too_deep).
ctoml_document *ctoml_parse(const char *text, size_t length, const char *source_name);

/// 1 when the text parsed, 0 when it had a syntax error.
int ctoml_succeeded(const ctoml_document *document);

/// 1 when the document was refused for nesting deeper than CTOML_MAXIMUM_DEPTH (the error's line and
/// column say where it goes past it) rather than for a syntax error.
int ctoml_error_is_too_deep(const ctoml_document *document);

/// The parse error: toml++'s description (no position in it), and where it was found (1-based, 0 if
/// unknown). Empty string and 0 when the parse succeeded.
const char *ctoml_error_description(const ctoml_document *document);
uint32_t ctoml_error_line(const ctoml_document *document);
uint32_t ctoml_error_column(const ctoml_document *document);

/// The nodes of a successfully parsed document (0 after a parse error).
size_t ctoml_node_count(const ctoml_document *document);
const ctoml_node *ctoml_nodes(const ctoml_document *document);

/// Frees the document and every string it handed out.
void ctoml_free(ctoml_document *document);

#ifdef __cplusplus
}
#endif

#endif

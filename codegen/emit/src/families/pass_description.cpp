// The pieces of a rendered pass that do not depend on the backend.
#include "pass_description.hpp"

#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {

std::string tensor_declaration(const TensorUse& t) {
  return (t.written ? "" : "const ") + t.element + "* const " + t.name + " = " + t.pointer + ";  " +
         t.note;
}

TensorUse buffer_tensor(ArenaText& arena, const std::string& name, int buffer, bool written,
                        const std::string& note_suffix) {
  return {name,
          arena.element(buffer),
          written,
          arena.at(buffer),
          arena.note(buffer) + note_suffix,
          arena.sliced(buffer)};
}

TensorUse input_gradient_tensor(const LayerPlan& l, ArenaText& arena) {
  Printer::Vars v;
  input_gradient_vars(v, l, arena);
  return {"dx", arena.element(l.input_gradient_buffer), true, v["dx"], v["dx_note"]};
}

std::string loop_text(const std::string& open, const std::vector<std::string>& body,
                      const std::string& close) {
  std::string text = open;
  for (const std::string& statement : body) {
    text += "\n  ";
    for (char c : statement)  // every line of the statement one level in
      text += c == '\n' ? std::string("\n  ") : std::string(1, c);
  }
  return text + "\n" + close;
}

bool shares_memory(const Direction& d, const TensorUse& t) {
  if (t.pointer == "nullptr")
    return false;
  for (const TensorUse& other : d.tensors)
    if (&other != &t && other.pointer == t.pointer)
      return true;
  return false;
}

std::string tensor_parameter(const Direction& d, const TensorUse& t, bool restrict_qualified) {
  return std::string(t.written ? "" : "const ") + t.element + "*" +
         (restrict_qualified && !shares_memory(d, t) ? " __restrict__ " : " ") + t.name;
}

std::string tensor_parameters(const Direction& d, bool restrict_qualified) {
  std::string text;
  for (const TensorUse& t : d.tensors)
    text += (text.empty() ? "" : ", ") + tensor_parameter(d, t, restrict_qualified);
  return text;
}

std::string plan_call(const std::string& function, const Direction& d,
                      const std::string& trailing) {
  // One argument a line, its note after the comma, as clang-format keeps a list with comments.
  std::string text = function + "(";
  const std::string indent(function.size() + 1, ' ');
  for (std::size_t i = 0; i < d.tensors.size(); ++i)
    text += (i ? indent : "") + d.tensors[i].pointer + ",  " + d.tensors[i].note + "\n";
  return text + indent + trailing + ");";
}

std::string expectations_comment(const Direction& d) {
  std::string text;
  for (const std::string& e : d.expects)
    text += (text.empty() ? "" : "; ") + e;
  return text.empty() ? "" : wrap_comment("Expects " + text + ".", "// ", "// ") + "\n";
}

bool write_preamble(Printer& out, const GroupPasses& d) {
  const std::string& text = d.no_code.empty() ? d.preamble : d.no_code;
  if (!text.empty()) {
    out.line(text);
    out.blank();
  }
  return d.no_code.empty();
}

std::string axis_parameters(const std::vector<std::string>& axes) {
  std::string text;
  for (const std::string& axis : axes)
    text += (text.empty() ? "index_t " : ", index_t ") + axis;
  return text;
}

std::string direction_statements(const Direction& d, bool declare, const std::string& label,
                                 const StatementStyle& style) {
  Printer out;
  if (declare)
    for (const TensorUse& t : d.tensors)
      out.line(tensor_declaration(t));
  if (d.identity && !d.passes.empty()) {
    out.emit({{"training", style.training}, {"identity", style.identity(*d.identity)}}, R"(
      if (!$training$) {  // evaluation: the identity
        $identity$
        return;
      }
    )");
  } else if (d.identity) {
    out.line(style.identity(*d.identity));
  }
  if (!d.evaluation.empty()) {
    out.line("if (!" + style.training + ") {  // evaluation");
    out.indent();
    style.passes(out, d.evaluation, label + " (evaluation)");
    out.line("return;");
    out.outdent();
    out.line("}");
  }
  if (!style.before_training.empty())
    out.line(style.before_training);
  style.passes(out, d.passes, label);
  std::string text = out.text();
  text.pop_back();  // the function's template ends the last line
  return text;
}

void write_function_pair(Printer& out, ArenaText& arena, const std::string& name,
                         const Direction& d, const std::string& body, const std::string& own,
                         const std::string& plan, const std::string& arguments,
                         bool restrict_qualified) {
  const bool micro = d.slices_batch() || d.dropout_slice_elements > 0;
  if (micro)
    arena.note_takes_micro_batch(name);
  out.emit({{"name", name},
            {"tensors", tensor_parameters(d, restrict_qualified)},
            {"own", own},
            {"plan", plan + (micro ? ", index_t micro" : "")},
            {"expects", expectations_comment(d)},
            {"body", body},
            {"call", plan_call(name, d, arguments)}},
           R"(
    $expects$void $name$($tensors$, $own$) {
      $body$
    }

    // The same on the plan's buffers:
    void $name$(std::byte* arena, $plan$) {
      $call$
    }

  )");
}

void write_recompute_overload(Printer& out, ArenaText& arena, const std::string& name,
                              const std::string& function, const Direction& d,
                              const std::string& plan, const std::string& arguments) {
  const bool micro = d.slices_batch() || d.dropout_slice_elements > 0;
  if (micro)
    arena.note_takes_micro_batch(name);
  out.emit({{"name", name},
            {"plan", plan + (micro ? ", index_t micro" : "")},
            {"call", plan_call(function, d, arguments)}},
           R"(
    // Recomputed (checkpointing): the same over the buffers its recompute writes.
    void $name$(std::byte* arena, $plan$) {
      $call$
    }

  )");
}

}  // namespace staticnet::codegen

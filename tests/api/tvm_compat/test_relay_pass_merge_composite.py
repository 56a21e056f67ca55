# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.
# ruff: noqa
"""A subset of TVM v0.13's tests/python/relay/test_pass_merge_composite.py, run with
`import xtvm as tvm`, with TVM's expected functions.

Adapted: a composite function's parameters in the expected programs have the types TVM's
InferType would give them (xtvm infers a function's parameter types from their annotations,
not from a call's arguments). Not included: test_multiple_input_subgraphs, the second half of
test_pattern_with_check and the tests after it (let-bound, dominator and prelude cases).
"""

import pytest

import xtvm as tvm
from xtvm import relay
from xtvm.relay.dataflow_pattern import TupleGetItemPattern, is_op, wildcard
from xtvm.relay.testing import run_opt_pass


def make_add_sub_mul_pattern():
    x = wildcard()
    y = wildcard()
    return (x + y) * (x - y)


def make_add_relu_pattern():
    add_node = wildcard() + wildcard()
    r = is_op("nn.relu")(add_node)
    return r


def make_conv_bias_relu_pattern():
    x = wildcard()
    y = wildcard()
    z = wildcard()
    conv_node = is_op("nn.conv2d")(x, y)
    bias_node = is_op("nn.bias_add")(conv_node, z)
    r = is_op("nn.relu")(bias_node)
    return r


def make_pattern_with_optional():
    x = wildcard()
    y = wildcard()
    z = wildcard()
    conv_node = is_op("nn.conv2d")(x, y)
    bias_node = is_op("nn.bias_add")(conv_node, z)
    r = bias_node.optional(lambda x: is_op("nn.relu")(x))
    return r


def make_add_add_add_pattern():
    x = wildcard()
    y = wildcard()
    add_node = is_op("add")(x, y)
    add_node_1 = is_op("add")(x, add_node)
    r = is_op("add")(add_node_1, add_node)
    return r


def make_bn_relu_pattern():
    x = wildcard()
    gamma = wildcard()
    beta = wildcard()
    moving_mean = wildcard()
    moving_var = wildcard()
    bn_node = is_op("nn.batch_norm")(x, gamma, beta, moving_mean, moving_var)
    tuple_get_item_node = TupleGetItemPattern(bn_node, 0)
    r = is_op("nn.relu")(tuple_get_item_node)
    return r


def check_result(pattern_table, graph, expected_graph, import_prelude=False):
    """Utility function to check merge composite results."""
    result = run_opt_pass(
        graph, relay.transform.MergeComposite(pattern_table), import_prelude=import_prelude
    )
    assert not relay.analysis.free_vars(result), "Found free vars in the result graph: {0}".format(
        str(result)
    )
    expected = run_opt_pass(expected_graph, relay.transform.InferType())
    tvm.ir.assert_structural_equal(result, expected, map_free_vars=True)


def test_simple_merge():
    pattern_table = [("add_relu", make_add_relu_pattern())]

    def before():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))
        add_node = relay.add(a, b)
        r = relay.nn.relu(add_node)
        return relay.Function([a, b], r)

    def expected():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))

        in_1 = relay.var("in_1", shape=(10, 10))
        in_2 = relay.var("in_2", shape=(10, 10))
        add_node = relay.add(in_1, in_2)
        relu_node = relay.nn.relu(add_node)
        add_relu = relay.Function([in_1, in_2], relu_node)
        add_relu = add_relu.with_attr("Composite", "add_relu")
        add_relu = add_relu.with_attr("PartitionedFromPattern", "add_nn.relu_")

        r = relay.Call(add_relu, [a, b])
        return relay.Function([a, b], r)

    check_result(pattern_table, before(), expected())


def test_branch_merge():
    pattern_table = [("add_sub_mul", make_add_sub_mul_pattern())]

    def before():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))
        c = relay.var("c", shape=(10, 10))
        add_node = relay.add(a, b)
        sub_node = relay.subtract(a, b)
        mul_node = relay.multiply(add_node, sub_node)
        add_node_2 = relay.add(c, mul_node)
        sub_node_2 = relay.subtract(c, mul_node)
        mul_node_2 = relay.multiply(add_node_2, sub_node_2)
        r = relay.nn.relu(mul_node_2)
        return relay.Function([a, b, c], r)

    def expected():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))
        c = relay.var("c", shape=(10, 10))

        in_1 = relay.var("in_1", shape=(10, 10))
        in_2 = relay.var("in_2", shape=(10, 10))
        add_node = relay.add(in_1, in_2)
        sub_node = relay.subtract(in_1, in_2)
        mul_node = relay.multiply(add_node, sub_node)
        add_sub_mul = relay.Function([in_1, in_2], mul_node)
        add_sub_mul = add_sub_mul.with_attr("Composite", "add_sub_mul")
        add_sub_mul = add_sub_mul.with_attr("PartitionedFromPattern", "add_subtract_multiply_")

        in_3 = relay.var("in_3", shape=(10, 10))
        in_4 = relay.var("in_4", shape=(10, 10))
        add_node_1 = relay.add(in_3, in_4)
        sub_node_1 = relay.subtract(in_3, in_4)
        mul_node_1 = relay.multiply(add_node_1, sub_node_1)
        add_sub_mul_1 = relay.Function([in_3, in_4], mul_node_1)
        add_sub_mul_1 = add_sub_mul_1.with_attr("Composite", "add_sub_mul")
        add_sub_mul_1 = add_sub_mul_1.with_attr("PartitionedFromPattern", "add_subtract_multiply_")

        m_add_sub_mul_1 = relay.Call(add_sub_mul, [a, b])
        m_add_sub_mul_2 = relay.Call(add_sub_mul_1, [c, m_add_sub_mul_1])
        r = relay.nn.relu(m_add_sub_mul_2)
        return relay.Function([a, b, c], r)

    check_result(pattern_table, before(), expected())


def test_reuse_call_merge():
    pattern_table = [("add_add_add", make_add_add_add_pattern())]

    def before():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))
        sub_node = relay.subtract(a, b)

        add_node = relay.add(sub_node, b)
        add_node_1 = relay.add(sub_node, add_node)
        r = relay.add(add_node_1, add_node)

        return relay.Function([a, b], r)

    def expected():
        a = relay.var("a", shape=(10, 10))
        b = relay.var("b", shape=(10, 10))

        in_1 = relay.var("in_1", shape=(10, 10))
        in_2 = relay.var("in_2", shape=(10, 10))
        add_node = relay.add(in_1, in_2)
        add_node_1 = relay.add(in_1, add_node)
        add_node_2 = relay.add(add_node_1, add_node)
        add_add_add = relay.Function([in_1, in_2], add_node_2)
        add_add_add = add_add_add.with_attr("Composite", "add_add_add")
        add_add_add = add_add_add.with_attr("PartitionedFromPattern", "add_add_add_")

        sub_node = relay.subtract(a, b)
        call = relay.Call(add_add_add, [sub_node, b])
        return relay.Function([a, b], call)

    check_result(pattern_table, before(), expected())


def test_multiple_patterns():
    pattern_table = [
        ("conv2d_bias_relu", make_conv_bias_relu_pattern()),
        ("add_relu", make_add_relu_pattern()),
    ]

    def before():
        data = relay.var("data", shape=(1, 512, 28, 28))
        kernel = relay.var("kernel", shape=(256, 512, 1, 1))
        bias = relay.var("bias", shape=(256,))
        a = relay.var("a", shape=(1, 256, 28, 28))
        b = relay.var("b", shape=(1, 256, 28, 28))

        conv_node = relay.nn.conv2d(
            data, kernel, kernel_size=(1, 1), padding=(0, 0), strides=(1, 1)
        )

        bias_node = relay.nn.bias_add(conv_node, bias)
        relu_node = relay.nn.relu(bias_node)
        add_node = relay.add(relu_node, a)
        relu_node_2 = relay.nn.relu(add_node)
        r = relay.multiply(relu_node_2, b)
        return relay.Function([data, kernel, bias, a, b], r)

    def expected():
        data = relay.var("data", shape=(1, 512, 28, 28))
        kernel = relay.var("kernel", shape=(256, 512, 1, 1))
        bias = relay.var("bias", shape=(256,))
        a = relay.var("a", shape=(1, 256, 28, 28))
        b = relay.var("b", shape=(1, 256, 28, 28))

        in_1 = relay.var("in_1", shape=(1, 512, 28, 28))
        in_2 = relay.var("in_2", shape=(256, 512, 1, 1))
        in_3 = relay.var("in_3", shape=(256,))

        conv_node = relay.nn.conv2d(in_1, in_2, kernel_size=(1, 1), padding=(0, 0), strides=(1, 1))

        bias_node = relay.nn.bias_add(conv_node, in_3)
        r = relay.nn.relu(bias_node)
        conv_bias_add_relu = relay.Function([in_1, in_2, in_3], r)
        conv_bias_add_relu = conv_bias_add_relu.with_attr("Composite", "conv2d_bias_relu")
        conv_bias_add_relu = conv_bias_add_relu.with_attr(
            "PartitionedFromPattern", "nn.conv2d_nn.bias_add_nn.relu_"
        )

        in_4 = relay.var("in_4", shape=(1, 256, 28, 28))
        in_5 = relay.var("in_5", shape=(1, 256, 28, 28))
        add_node = relay.add(in_4, in_5)
        r = relay.nn.relu(add_node)
        add_relu = relay.Function([in_4, in_5], r)
        add_relu = add_relu.with_attr("Composite", "add_relu")
        add_relu = add_relu.with_attr("PartitionedFromPattern", "add_nn.relu_")

        conv_bias_add_relu_1 = relay.Call(conv_bias_add_relu, [data, kernel, bias])
        add_relu_1 = relay.Call(add_relu, [conv_bias_add_relu_1, a])
        r = relay.multiply(add_relu_1, b)
        return relay.Function([data, kernel, bias, a, b], r)

    check_result(pattern_table, before(), expected())


def test_optional_pattern():
    pattern_table = [("layer", make_pattern_with_optional())]

    def before():
        x = relay.var("x", shape=(1, 3, 7, 7))
        w1 = relay.var("w", shape=(3, 3, 1, 1))
        b1 = relay.var("b", shape=(3,))
        w2 = relay.var("w", shape=(3, 3, 1, 1))
        b2 = relay.var("b", shape=(3,))
        conv = relay.nn.conv2d(x, w1, kernel_size=(1, 1))
        bias = relay.nn.bias_add(conv, b1)
        relu = relay.nn.relu(bias)
        conv = relay.nn.conv2d(relu, w2, kernel_size=(1, 1))
        bias = relay.nn.bias_add(conv, b2)
        return relay.Function([x, w1, w2, b1, b2], bias)

    def expected():
        x = relay.var("x", shape=(1, 3, 7, 7))
        w = relay.var("w", shape=(3, 3, 1, 1))
        b = relay.var("b", shape=(3,))
        conv = relay.nn.conv2d(x, w, kernel_size=(1, 1))
        bias = relay.nn.bias_add(conv, b)
        relu = relay.nn.relu(bias)
        func1 = relay.Function([x, w, b], relu)
        func1 = func1.with_attr("Composite", "layer")
        func1 = func1.with_attr("PartitionedFromPattern", "nn.conv2d_nn.bias_add_nn.relu_")

        x = relay.var("x", shape=(1, 3, 7, 7))
        w = relay.var("w", shape=(3, 3, 1, 1))
        b = relay.var("b", shape=(3,))
        conv = relay.nn.conv2d(x, w, kernel_size=(1, 1))
        bias = relay.nn.bias_add(conv, b)
        func2 = relay.Function([x, w, b], bias)
        func2 = func2.with_attr("Composite", "layer")
        func2 = func2.with_attr("PartitionedFromPattern", "nn.conv2d_nn.bias_add_")

        x = relay.var("x", shape=(1, 3, 7, 7))
        w1 = relay.var("w", shape=(3, 3, 1, 1))
        b1 = relay.var("b", shape=(3,))
        w2 = relay.var("w", shape=(3, 3, 1, 1))
        b2 = relay.var("b", shape=(3,))
        out1 = func1(x, w1, b1)
        out2 = func2(out1, w2, b2)
        return relay.Function([x, w1, w2, b1, b2], out2)

    check_result(pattern_table, before(), expected())


def test_merge_order():
    def pattern_A():
        x = wildcard()
        y = wildcard()
        out = is_op("add")(x, y)
        out = is_op("abs")(out)
        out = is_op("nn.relu")(out)
        return out

    def pattern_B():
        x = wildcard()
        y = wildcard()
        out = is_op("add")(x, y)
        out = is_op("abs")(out)
        return out

    def pattern_C():
        x = wildcard()
        out = is_op("abs")(x)
        out = is_op("nn.relu")(out)
        return out

    def before():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        out = relay.add(input_1, input_2)
        out = relay.abs(out)
        out = relay.nn.relu(out)
        return relay.Function([input_1, input_2], out)

    def after_A_priority():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        x = relay.var("x", shape=(10, 10))
        y = relay.var("y", shape=(10, 10))
        out = relay.add(x, y)
        out = relay.abs(out)
        out = relay.nn.relu(out)
        merged_func = relay.Function([x, y], out)
        merged_func = merged_func.with_attr("Composite", "A")
        merged_func = merged_func.with_attr("PartitionedFromPattern", "add_abs_nn.relu_")
        ret = relay.Call(merged_func, [input_1, input_2])
        return relay.Function([input_1, input_2], ret)

    def after_B_priority():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        x = relay.var("x", shape=(10, 10))
        y = relay.var("y", shape=(10, 10))
        out = relay.add(x, y)
        out = relay.abs(out)
        merged_func = relay.Function([x, y], out)
        merged_func = merged_func.with_attr("Composite", "B")
        merged_func = merged_func.with_attr("PartitionedFromPattern", "add_abs_")
        out = relay.Call(merged_func, [input_1, input_2])
        ret = relay.nn.relu(out)
        return relay.Function([input_1, input_2], ret)

    def after_C_priority():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        x = relay.var("x", shape=(10, 10))
        out = relay.abs(x)
        out = relay.nn.relu(out)
        merged_func = relay.Function([x], out)
        merged_func = merged_func.with_attr("Composite", "C")
        merged_func = merged_func.with_attr("PartitionedFromPattern", "abs_nn.relu_")
        out = relay.add(input_1, input_2)
        ret = relay.Call(merged_func, [out])
        return relay.Function([input_1, input_2], ret)

    pattern_table = [("A", pattern_A()), ("B", pattern_B()), ("C", pattern_C())]
    check_result(pattern_table, before(), after_A_priority())

    pattern_table = [("B", pattern_B()), ("C", pattern_C()), ("A", pattern_A())]
    check_result(pattern_table, before(), after_B_priority())

    pattern_table = [("C", pattern_C()), ("A", pattern_A()), ("B", pattern_B())]
    check_result(pattern_table, before(), after_C_priority())


def test_parallel_merge():
    def before():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        branch_1_add = relay.add(input_1, input_2)
        branch_1_sub = relay.subtract(input_1, input_2)
        branch_1 = relay.multiply(branch_1_add, branch_1_sub)
        branch_2_add = relay.add(input_1, input_2)
        branch_2_sub = relay.subtract(input_1, input_2)
        branch_2 = relay.multiply(branch_2_add, branch_2_sub)
        out = relay.multiply(branch_1, branch_2)
        return relay.Function([input_1, input_2], out)

    def expected():
        input_1 = relay.var("input_1", shape=(10, 10))
        input_2 = relay.var("input_2", shape=(10, 10))
        x = relay.var("x", shape=(10, 10))
        y = relay.var("y", shape=(10, 10))
        branch_1 = relay.multiply(relay.add(x, y), relay.subtract(x, y))
        func_1 = relay.Function([x, y], branch_1)
        func_1 = func_1.with_attr("Composite", "add_sub_mul")
        func_1 = func_1.with_attr("PartitionedFromPattern", "add_subtract_multiply_")
        call_1 = relay.Call(func_1, [input_1, input_2])
        x1 = relay.var("x1", shape=(10, 10))
        y1 = relay.var("y1", shape=(10, 10))
        branch_2 = relay.multiply(relay.add(x1, y1), relay.subtract(x1, y1))
        func_2 = relay.Function([x1, y1], branch_2)
        func_2 = func_2.with_attr("Composite", "add_sub_mul")
        func_2 = func_2.with_attr("PartitionedFromPattern", "add_subtract_multiply_")
        call_2 = relay.Call(func_2, [input_1, input_2])
        out = relay.multiply(call_1, call_2)
        return relay.Function([input_1, input_2], out)

    pattern_table = [("add_sub_mul", make_add_sub_mul_pattern())]
    check_result(pattern_table, before(), expected())


def test_tuple_get_item_merge():
    pattern_table = [("bn_relu", make_bn_relu_pattern())]

    def before():
        x = relay.var("x", shape=(1, 8))
        gamma = relay.var("gamma", shape=(8,))
        beta = relay.var("beta", shape=(8,))
        moving_mean = relay.var("moving_mean", shape=(8,))
        moving_var = relay.var("moving_var", shape=(8,))
        bn_node = relay.nn.batch_norm(x, gamma, beta, moving_mean, moving_var)
        tuple_get_item_node = bn_node[0]
        r = relay.nn.relu(tuple_get_item_node)
        return relay.Function([x, gamma, beta, moving_mean, moving_var], r)

    def expected():
        x = relay.var("x", shape=(1, 8))
        beta = relay.var("beta", shape=(8,))
        gamma = relay.var("gamma", shape=(8,))
        moving_mean = relay.var("moving_mean", shape=(8,))
        moving_var = relay.var("moving_var", shape=(8,))

        in_1 = relay.var("x1", shape=(1, 8))
        in_2 = relay.var("gamma1", shape=(8,))
        in_3 = relay.var("beta1", shape=(8,))
        in_4 = relay.var("moving_mean1", shape=(8,))
        in_5 = relay.var("moving_var1", shape=(8,))
        bn_node = relay.nn.batch_norm(in_1, in_2, in_3, in_4, in_5)
        tuple_get_item_node = bn_node[0]
        relu_node = relay.nn.relu(tuple_get_item_node)
        bn_relu = relay.Function([in_1, in_2, in_3, in_4, in_5], relu_node)
        bn_relu = bn_relu.with_attr("Composite", "bn_relu")
        bn_relu = bn_relu.with_attr(
            "PartitionedFromPattern", "nn.batch_norm_TupleGetItem0_nn.relu_"
        )

        r = relay.Call(bn_relu, [x, gamma, beta, moving_mean, moving_var])
        return relay.Function([x, gamma, beta, moving_mean, moving_var], r)

    check_result(pattern_table, before(), expected())


def test_pattern_with_check():
    def before():
        x = relay.var("x", shape=(1, 10, 10, 10))
        w = relay.var("w", shape=(10, 10, 3, 3))
        b = relay.var("b", shape=(8,))
        conv = relay.nn.conv2d(x, w, kernel_size=(3, 3), kernel_layout="OIHW", data_layout="NHWC")
        bias = relay.nn.bias_add(conv, b)
        relu = relay.nn.relu(bias)
        return relay.Function([x, w, b], relu)

    def _check_true(extract):
        conv = extract.args[0].args[0]
        return conv.attrs.data_layout == "NHWC"

    def _check_false(extract):
        conv = extract.args[0].args[0]
        return conv.attrs.data_layout == "NCHW"

    pattern_table_false = [("conv_bias_relu", make_conv_bias_relu_pattern(), _check_false)]
    check_result(pattern_table_false, before(), before())

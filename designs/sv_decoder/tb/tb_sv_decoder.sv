`timescale 1ns/1ps
// Exhaustive self-checking testbench for sv_decoder: all 256 instruction bytes against a table model.
module tb_sv_decoder;
    logic [7:0] instr;
    logic [2:0] alu_op;
    logic       reg_we, mem_re, mem_we, use_imm, branch, jump, illegal;
    logic [7:0] imm;
    logic [1:0] pc_step;

    sv_decoder dut (.instr(instr), .alu_op(alu_op), .reg_we(reg_we), .mem_re(mem_re), .mem_we(mem_we),
                    .use_imm(use_imm), .branch(branch), .jump(jump), .illegal(illegal), .imm(imm),
                    .pc_step(pc_step));

    // expected {alu_op, writes, mem_re, mem_we, use_imm, branch, jump, illegal} of an opcode
    function automatic [9:0] model(input [3:0] opcode);
        case (opcode)
            4'd0:  model = {3'd7, 7'b0000000};
            4'd1:  model = {3'd0, 7'b1000000};
            4'd2:  model = {3'd1, 7'b1000000};
            4'd3:  model = {3'd2, 7'b1000000};
            4'd4:  model = {3'd3, 7'b1000000};
            4'd5:  model = {3'd4, 7'b1000000};
            4'd6:  model = {3'd5, 7'b1000000};
            4'd7:  model = {3'd6, 7'b1000000};
            4'd8:  model = {3'd0, 7'b1001000};
            4'd9:  model = {3'd0, 7'b1101000};
            4'd10: model = {3'd0, 7'b0011000};
            4'd11: model = {3'd1, 7'b0001100};
            4'd12: model = {3'd1, 7'b0001100};
            4'd13: model = {3'd7, 7'b0001010};
            default: model = {3'd7, 7'b0000001};
        endcase
    endfunction

    integer code, errors;
    reg [9:0] expected;
    reg       exp_we;
    reg [7:0] exp_imm;
    reg [1:0] exp_step;

    initial begin
        errors = 0;
        for (code = 0; code < 256; code = code + 1) begin
            instr = code[7:0];
            #1;
            expected = model(instr[7:4]);
            exp_we = expected[6] && instr[3:2] != 2'd0;
            if (expected[2])
                exp_imm = {{6{instr[1]}}, instr[1:0]};
            else if (expected[3])
                exp_imm = instr[1:0] * 4 + instr[3:2];
            else
                exp_imm = 8'd0;
            exp_step = expected[3] ? 2'd2 : 2'd1;
            if (alu_op !== expected[9:7] || reg_we !== exp_we || {mem_re, mem_we, use_imm, branch, jump, illegal}
                    !== expected[5:0] || imm !== exp_imm || pc_step !== exp_step) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH instr=%h: alu_op=%0d we=%b ctl=%b imm=%h step=%0d expected %0d %b %b %h %0d",
                             instr, alu_op, reg_we, {mem_re, mem_we, use_imm, branch, jump, illegal}, imm, pc_step,
                             expected[9:7], exp_we, expected[5:0], exp_imm, exp_step);
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule

`timescale 1ns/1ps
// Self-checking testbench for exclusions_demo: every op, the magic value BEEF, resets, then
// 4000 cycles of random ops and data. A model of acc, staged, magic and last_op is stepped at
// each rising edge and checked every cycle.
module tb_exclusions_demo;
    reg         clk = 1'b0;
    reg         rst_n;
    reg  [1:0]  op;
    reg  [15:0] data;
    wire [15:0] acc, staged;
    wire        magic;
    wire [1:0]  last_op;

    exclusions_demo dut (.clk(clk), .rst_n(rst_n), .op(op), .data(data), .acc(acc), .staged(staged),
                         .magic(magic), .last_op(last_op));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    reg [15:0] m_acc, m_staged;
    reg        m_magic;
    reg [1:0]  m_last;
    integer errors, n;

    task check;
        begin
            if (acc !== m_acc || staged !== m_staged || magic !== m_magic || last_op !== m_last) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: acc=%h staged=%h magic=%b last_op=%0d expected %h %h %b %0d",
                             $time, acc, staged, magic, last_op, m_acc, m_staged, m_magic, m_last);
            end
        end
    endtask

    task model_reset;
        begin
            m_acc = 0; m_staged = 0; m_magic = 0; m_last = 0;
        end
    endtask

    task model_step;
        begin
            m_staged = m_acc;
            case (op)
                2'd0: m_acc = m_acc + data;
                2'd1: m_acc = m_acc - data;
                2'd2: m_acc = m_acc ^ data;
                default: m_acc = data;
            endcase
            if (data == 16'hBEEF) m_magic = 1'b1;
            m_last = op;
        end
    endtask

    task cycle;
        input [1:0] o; input [15:0] d;
        begin
            @(negedge clk);
            check;
            op = o; data = d;
            @(posedge clk);
            model_step;
        end
    endtask

    integer i;
    initial begin
        errors = 0;
        seed = 32'h0E0C_1D25;
        op = 0; data = 0;
        rst_n = 1'b0;
        model_reset;
        repeat (2) @(posedge clk);
        @(negedge clk);
        rst_n = 1'b1;
        cycle(2'd3, 16'h1234);
        cycle(2'd0, 16'h0001);
        cycle(2'd1, 16'h0235);
        cycle(2'd2, 16'hFFFF);
        cycle(2'd0, 16'hBEEF);
        cycle(2'd1, 16'h0000);
        // a reset in the middle clears everything, magic included
        @(negedge clk);
        check;
        rst_n = 1'b0;
        op = 2'd0; data = 16'd0;  // the edge after the release adds 0: the model's reset state holds
        #1 model_reset;
        @(negedge clk);
        check;
        rst_n = 1'b1;
        for (i = 0; i < 4000; i = i + 1) begin
            n = urand(0);
            cycle(n[1:0], (n[9:2] == 8'd0) ? 16'hBEEF : urand(0));
        end
        @(negedge clk);
        check;
        if (errors == 0) $display("TEST PASSED");
        else $display("TEST FAILED: %0d mismatches", errors);
        $finish;
    end
endmodule

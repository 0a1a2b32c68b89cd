`timescale 1ns/1ps
// Self-checking testbench for deep_fsm: directed runs of the full command path
// (with pause/resume, every abort and every error exit), then 8000 cycles of
// random commands biased toward the next correct command of the path. A
// behavioural model is stepped at each rising edge; phase, busy, done and error
// are checked every cycle.
module tb_deep_fsm;
    reg        clk = 1'b0;
    reg        rst;
    reg        cmd_valid;
    reg  [3:0] cmd;
    reg  [7:0] arg;
    wire [3:0] phase;
    wire       busy, done, error;

    deep_fsm dut (.clk(clk), .rst(rst), .cmd_valid(cmd_valid), .cmd(cmd), .arg(arg),
                  .phase(phase), .busy(busy), .done(done), .error(error));

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

    integer m_state, m_len, m_timer;
    integer errors, n, r, n_done, n_err;

    task check;
        begin
            if (phase !== m_state[3:0] || busy !== (m_state >= 5 && m_state <= 7) ||
                done !== (m_state == 8) || error !== (m_state == 9)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: phase=%0d busy=%b done=%b error=%b expected phase=%0d",
                             $time, phase, busy, done, error, m_state);
            end
        end
    endtask

    task model_step;
        begin
            if (rst) begin
                m_state = 0; m_len = 0; m_timer = 0;
            end else case (m_state)
                0: if (cmd_valid && cmd == 4'h1) m_state = 1;
                1: if (cmd_valid) begin
                       if (cmd == 4'h0) m_state = 0;
                       else if (cmd == 4'h5 && arg[7:4] == 4'hA) begin m_state = 2; m_len = arg[3:0]; end
                       else m_state = 9;
                   end
                2: if (cmd_valid) m_state = (cmd == 4'h0) ? 0 : (cmd == 4'h9 && arg == 8'h5A) ? 3 : 9;
                3: if (cmd_valid) m_state = (cmd == 4'h0) ? 0 : (cmd == 4'h9 && arg == 8'hC3) ? 4 : 9;
                4: if (cmd_valid) begin
                       if (cmd == 4'h0) m_state = 0;
                       else if (cmd == 4'hE && arg[3:0] == m_len && arg[7:4] == 15 - m_len) begin
                           m_state = 5; m_timer = 3;
                       end else m_state = 9;
                   end
                5: if (cmd_valid) m_state = 9;
                   else if (m_timer == 0) begin m_state = 6; m_timer = m_len + 3; end
                   else m_timer = m_timer - 1;
                6: if (cmd_valid && cmd == 4'h0) m_state = 0;
                   else if (cmd_valid && cmd == 4'h7) m_state = 7;
                   else if (m_timer == 0) begin m_state = 8; n_done = n_done + 1; end
                   else m_timer = m_timer - 1;
                7: if (cmd_valid && cmd == 4'h0) m_state = 0;
                   else if (cmd_valid && cmd == 4'h8) m_state = 6;
                8: if (cmd_valid && cmd == 4'hA) m_state = 0;
                9: if (cmd_valid && cmd == 4'hF) m_state = 0;
                default: m_state = 0;
            endcase
            if (m_state == 9) n_err = n_err + 1;
        end
    endtask

    task cycle;
        input v; input [3:0] c; input [7:0] a;
        begin
            @(negedge clk);
            check;
            cmd_valid = v; cmd = c; arg = a;
            @(posedge clk);
            model_step;
        end
    endtask

    task quiet;
        input integer k;
        integer i;
        begin
            for (i = 0; i < k; i = i + 1) cycle(1'b0, urand(0), urand(0));
        end
    endtask

    // the path up to CHECK with length l
    task path;
        input [3:0] l;
        begin
            cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, {4'hA, l});
            cycle(1'b1, 4'h9, 8'h5A); cycle(1'b1, 4'h9, 8'hC3); cycle(1'b1, 4'hE, {~l, l});
        end
    endtask

    // the next correct command in the model's state
    task good_cmd;
        output [3:0] c; output [7:0] a;
        begin
            a = urand(0);
            case (m_state)
                0: c = 4'h1;
                1: begin c = 4'h5; a[7:4] = 4'hA; end
                2: begin c = 4'h9; a = 8'h5A; end
                3: begin c = 4'h9; a = 8'hC3; end
                4: begin c = 4'hE; a = {~m_len[3:0], m_len[3:0]}; end
                6: c = (urand(0) % 4 == 0) ? 4'h7 : 4'h3;
                7: c = 4'h8;
                8: c = 4'hA;
                default: c = 4'hF;
            endcase
        end
    endtask

    reg [3:0] c;
    reg [7:0] a;
    initial begin
        errors = 0; n_done = 0; n_err = 0;
        seed = 32'hDEE9_F5A1;
        cmd_valid = 1'b0; cmd = 4'd0; arg = 8'd0;
        rst = 1'b1;
        m_state = 0; m_len = 0; m_timer = 0;
        @(posedge clk); @(posedge clk); #1 rst = 1'b0;
        // full path, len 2, pause and resume, done, ack
        path(4'd2); quiet(5); cycle(1'b1, 4'h7, 8'h00); quiet(3); cycle(1'b1, 4'h8, 8'h00);
        quiet(8); cycle(1'b1, 4'h3, 8'h00); cycle(1'b1, 4'hA, 8'h00);
        // len 15 and len 0
        path(4'd15); quiet(25); cycle(1'b1, 4'hA, 8'h00);
        path(4'd0); quiet(10); cycle(1'b1, 4'hA, 8'h00);
        // noise during CHECK -> ERR; CLEAR
        path(4'd3); quiet(2); cycle(1'b1, 4'h3, 8'h00); cycle(1'b1, 4'hF, 8'h00);
        // wrong guards at each step, aborts at each step
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, 8'hB0); cycle(1'b1, 4'hF, 8'h00);
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, 8'hA1); cycle(1'b1, 4'h9, 8'h5B); cycle(1'b1, 4'hF, 8'h00);
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, 8'hA1); cycle(1'b1, 4'h9, 8'h5A); cycle(1'b1, 4'h9, 8'h5A);
        cycle(1'b1, 4'hF, 8'h00);
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, 8'hA1); cycle(1'b1, 4'h9, 8'h5A); cycle(1'b1, 4'h9, 8'hC3);
        cycle(1'b1, 4'hE, 8'h1E); cycle(1'b1, 4'hF, 8'h00);
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h0, 8'h00);
        cycle(1'b1, 4'h1, 8'h00); cycle(1'b1, 4'h5, 8'hA4); cycle(1'b1, 4'h0, 8'h00);
        path(4'd6); quiet(6); cycle(1'b1, 4'h7, 8'h00); cycle(1'b1, 4'h0, 8'h00);
        path(4'd6); quiet(6); cycle(1'b1, 4'h0, 8'h00);
        // random, biased toward the path
        for (n = 0; n < 8000; n = n + 1) begin
            r = urand(0) % 100;
            if (m_state == 5 || (m_state == 6 && r < 80)) cycle(r < 3, urand(0), urand(0));
            else if (r < 40) cycle(1'b0, urand(0), urand(0));
            else if (r < 94) begin good_cmd(c, a); cycle(1'b1, c, a); end
            else cycle(1'b1, urand(0), urand(0));
            if (urand(0) % 2000 == 0) begin
                @(negedge clk); check; rst = 1'b1;
                @(posedge clk); model_step; #1 rst = 1'b0;
            end
        end
        @(negedge clk);
        check;
        if (n_done < 20 || n_err < 20) begin
            $display("coverage: done=%0d err=%0d", n_done, n_err);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d jobs done)", n_done);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule

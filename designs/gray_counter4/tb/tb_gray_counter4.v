`timescale 1ns/1ps
// Self-checking testbench for gray_counter4: 1500 cycles with random enable
// and occasional synchronous resets. The model counts in binary and looks up
// the expected code in a hard-coded reflected Gray table; it also checks that
// every enabled step changes exactly one bit.
module tb_gray_counter4;
    reg        clk = 1'b0;
    reg        rst, en;
    wire [3:0] gray;

    gray_counter4 dut (.clk(clk), .rst(rst), .en(en), .gray(gray));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
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

    reg [3:0] table_g [0:15];
    integer errors;
    integer n, r, k, diff;
    integer count;            // 0 .. 15
    integer wraps;
    reg [3:0] prev;
    reg       stepped;

    initial begin
        table_g[0]  = 4'b0000; table_g[1]  = 4'b0001; table_g[2]  = 4'b0011; table_g[3]  = 4'b0010;
        table_g[4]  = 4'b0110; table_g[5]  = 4'b0111; table_g[6]  = 4'b0101; table_g[7]  = 4'b0100;
        table_g[8]  = 4'b1100; table_g[9]  = 4'b1101; table_g[10] = 4'b1111; table_g[11] = 4'b1110;
        table_g[12] = 4'b1010; table_g[13] = 4'b1011; table_g[14] = 4'b1001; table_g[15] = 4'b1000;
        errors = 0; wraps = 0;
        seed = 32'h6A4E_0004;
        rst = 1'b1; en = 1'b0;
        count = 0; stepped = 1'b0;
        @(posedge clk);
        @(negedge clk);
        prev = gray;
        for (n = 0; n < 1500; n = n + 1) begin
            @(negedge clk);
            if (gray !== table_g[count]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: gray=%b expected %b (count %0d)", $time, gray, table_g[count], count);
            end
            if (stepped) begin
                diff = 0;
                for (k = 0; k < 4; k = k + 1)
                    if (gray[k] !== prev[k]) diff = diff + 1;
                if (diff != 1) begin
                    errors = errors + 1;
                    if (errors <= 10)
                        $display("STEP t=%0t: %b -> %b changes %0d bits", $time, prev, gray, diff);
                end
            end
            prev = gray;
            r  = urand(0) % 200;
            rst = (r == 0);
            r  = urand(0) % 100;
            en = (r < 70);
            @(posedge clk);
            stepped = en && !rst;
            if (rst) count = 0;
            else if (en) begin
                count = count + 1;
                if (count == 16) begin count = 0; wraps = wraps + 1; end
            end
        end
        if (wraps < 20) begin
            $display("coverage: only %0d wraps", wraps);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule

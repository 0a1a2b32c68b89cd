`timescale 1ns/1ps
// Self-checking testbench for traffic_light: 4000 cycles with a car sensor of
// varying activity (including long idle stretches) and occasional resets.
// The model tracks the phase and how many cycles it has been shown; it also
// checks the safety invariant (never green/yellow on both roads at once).
module tb_traffic_light;
    reg        clk = 1'b0;
    reg        rst;
    reg        ew_car;
    wire [2:0] ns_light, ew_light;

    traffic_light dut (.clk(clk), .rst(rst), .ew_car(ew_car),
                       .ns_light(ns_light), .ew_light(ew_light));

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

    integer errors;
    integer n, r, dens;
    integer phase;        // 0 NS green, 1 NS yellow, 2 all red, 3 EW green, 4 EW yellow, 5 all red
    integer shown;        // cycles the current phase has been displayed, including this one
    integer cycles_done;  // completed full light cycles
    integer long_green;   // NS green phases longer than the minimum
    reg [2:0] exp_ns, exp_ew;
    reg       go;

    task expected;
        begin
            exp_ns = 3'b100; exp_ew = 3'b100;               // red
            if (phase == 0) exp_ns = 3'b001;
            if (phase == 1) exp_ns = 3'b010;
            if (phase == 3) exp_ew = 3'b001;
            if (phase == 4) exp_ew = 3'b010;
        end
    endtask

    task check;
        begin
            expected;
            if (ns_light !== exp_ns || ew_light !== exp_ew) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t phase=%0d shown=%0d: ns=%b ew=%b expected ns=%b ew=%b",
                             $time, phase, shown, ns_light, ew_light, exp_ns, exp_ew);
            end
            if (ns_light[2] === 1'b0 && ew_light[2] === 1'b0) begin
                errors = errors + 1;
                $display("SAFETY t=%0t: both roads open ns=%b ew=%b", $time, ns_light, ew_light);
            end
        end
    endtask

    initial begin
        errors = 0; cycles_done = 0; long_green = 0;
        seed   = 32'h7AFF_1C00;
        rst    = 1'b1;
        ew_car = 1'b0;
        phase  = 0; shown = 1;
        @(posedge clk);
        for (n = 0; n < 4000; n = n + 1) begin
            @(negedge clk);
            check;
            r   = urand(0) % 500;
            rst = (r == 0) || (n == 1000);
            case ((n / 300) % 4)
                0: dens = 100;
                1: dens = 30;
                2: dens = 0;      // no side-road traffic: NS stays green
                default: dens = 5;
            endcase
            r = urand(0) % 100;
            ew_car = (r < dens);
            @(posedge clk);
            if (rst) begin
                phase = 0; shown = 1;
            end else begin
                case (phase)
                    0: go = (shown >= 8) && ew_car;
                    1: go = (shown == 2);
                    2: go = (shown == 1);
                    3: go = (shown == 5);
                    4: go = (shown == 2);
                    default: go = (shown == 1);
                endcase
                if (go) begin
                    if (phase == 0 && shown > 8) long_green = long_green + 1;
                    if (phase == 5) cycles_done = cycles_done + 1;
                    phase = (phase + 1) % 6;
                    shown = 1;
                end else begin
                    shown = shown + 1;
                end
            end
        end
        @(negedge clk);
        check;
        if (cycles_done < 50 || long_green < 5) begin
            $display("coverage: cycles_done=%0d long_green=%0d", cycles_done, long_green);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
